/**
 * The real Electrum wallet (4.8.1, installed by `scripts/install-lab.sh electrum-wallet`) syncing one
 * lab wallet from scratch, watch-only from its account xpub: what the `electrum` workload is held to.
 *
 * Each sync is its own daemon (`electrum --regtest -D DIR daemon --oneserver --server HOST:PORT:t`,
 * run in the foreground as our child, so its pid is ours to stop), connected through a recording
 * proxy that holds the connection until the wallet is restored and loaded: the sync is then timed
 * on the proxy's clock from the release to the last reply it needed, as a workload's sync is from
 * its connect, so neither Python's start-up nor our RPC calls count. The data dir starts with the
 * block headers a warm-up run downloaded (a wallet restored in an Electrum that ran before has
 * them), so the sync asks no headers, as the workload asks none.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressType } from '../../core/dataset-line';
import type { WalletLine } from '../../core/wallet-line';
import { labConfig } from '../config';
import type { WireRecorder } from '../wire-recorder';

export interface ElectrumSync {
  /** On the proxy's clock: from the connection's release to the last reply before Electrum said it was synchronized. */
  ms: number;
  confirmed: number;
  unconfirmed: number;
  txs: number;
  /** The recorder's number for the sync's connection: its requests are those of this connection. */
  connection: number;
  /** CPU time (user + system) the daemon spent from the release to synchronized: the wallet's own work. */
  cpuMs: number;
}

/** The lab's script types Electrum restores from an xpub, by Electrum's name for each key type (t/u/vpub on regtest). */
const XPUB_TYPES: Partial<Record<AddressType, string>> = { p2pkh: 'standard', 'p2sh-p2wpkh': 'p2wpkh-p2sh', p2wpkh: 'p2wpkh' };

/** Why Electrum cannot restore this wallet watch-only, or null when it can. */
export function electrumCannotRestore(w: WalletLine): string | null {
  if (!w.descriptors) return `wallet ${w.wallet} has no descriptors`;
  if (!XPUB_TYPES[w.type]) return `Electrum restores p2pkh, p2sh-p2wpkh and p2wpkh wallets from an xpub, not ${w.type} (${w.wallet})`;
  return null;
}

const STEP_MS = { start: 30_000, rpc: 30_000, sync: 180_000, stop: 10_000 };
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) killGroup(c);
});

export class RealElectrum {
  private constructor(
    private readonly recorder: WireRecorder,
    private readonly root: string,
    private readonly headers: string,
  ) {}

  /**
   * A client syncing through `recorder`. Its warm-up run downloads the chain's headers through it
   * (the caller clears what that recorded), for every later sync to start from.
   */
  static async start(recorder: WireRecorder): Promise<RealElectrum> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'electrum-bench-electrum-'));
    try {
      const warm = path.join(root, 'warm-up');
      await withDaemon(warm, recorder.port, async (rpc) => {
        const deadline = Date.now() + STEP_MS.sync;
        for (;;) {
          const info = await rpc<{ blockchain_height: number; server_height: number; connected: boolean }>('getinfo');
          if (info.connected && info.server_height > 0 && info.blockchain_height === info.server_height) break;
          if (Date.now() > deadline) throw new Error(`Electrum did not download the headers within ${STEP_MS.sync / 1000} s: ${JSON.stringify(info)}`);
          await sleep(50);
        }
      });
      return new RealElectrum(recorder, root, path.join(warm, 'regtest', 'blockchain_headers'));
    } catch (err) {
      fs.rmSync(root, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * One sync of `wallet` from scratch: a new data dir (with the headers), daemon, wallet and
   * connection, through `via` (the client's own recorder unless given). Fails if Electrum has not
   * said it is synchronized within `waitMs`.
   */
  async sync(wallet: WalletLine, opts: { via?: WireRecorder; waitMs?: number } = {}): Promise<ElectrumSync> {
    const recorder = opts.via ?? this.recorder;
    const waitMs = opts.waitMs ?? STEP_MS.sync;
    const why = electrumCannotRestore(wallet);
    if (why) throw new Error(why);
    const dir = fs.mkdtempSync(path.join(this.root, 'sync-'));
    fs.mkdirSync(path.join(dir, 'regtest'));
    fs.copyFileSync(this.headers, path.join(dir, 'regtest', 'blockchain_headers'));
    const walletPath = path.join(dir, 'wallet');
    const connection = recorder.connectionCount;
    recorder.hold();
    try {
      return await withDaemon(dir, recorder.port, async (rpc) => {
        const tpub = /\]([tuv]pub[1-9A-HJ-NP-Za-km-z]+)\/0\/\*/.exec(wallet.descriptors!.receive)?.[1];
        if (!tpub) throw new Error(`wallet ${wallet.wallet}: no account key in ${wallet.descriptors!.receive}`);
        const key = await rpc<string>('convert_xkey', { xkey: tpub, xtype: XPUB_TYPES[wallet.type] });
        await rpc('restore', { text: key, wallet_path: walletPath });
        await rpc('load_wallet', { wallet_path: walletPath });
        // It connects as its daemon starts; with --oneserver, once.
        for (const deadline = Date.now() + STEP_MS.start; recorder.connectionCount === connection; await sleep(10)) {
          if (Date.now() > deadline) throw new Error('Electrum has not connected to the recording proxy');
        }
        const cpuBefore = rpc.cpuMs();
        recorder.release();
        await rpc('wait_for_sync', { wallet_path: walletPath }, waitMs).catch((err: Error) => {
          throw new Error(`Electrum did not synchronize ${wallet.wallet} within ${waitMs / 1000} s (${err.message.split('\n')[0]})`);
        });
        const syncedNs = process.hrtime.bigint();
        const cpuMs = rpc.cpuMs() - cpuBefore;
        const balance = await rpc<{ confirmed: string; unconfirmed?: string }>('getbalance', { wallet_path: walletPath });
        const history = await rpc<unknown[]>('onchain_history', { wallet_path: walletPath });
        return { ms: recorder.spanMs(connection, syncedNs), confirmed: sats(balance.confirmed), unconfirmed: sats(balance.unconfirmed ?? '0'), txs: history.length, connection, cpuMs };
      });
    } finally {
      recorder.release();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  close(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

type Rpc = (<T = unknown>(method: string, params?: Record<string, unknown>, timeoutMs?: number) => Promise<T>) & { cpuMs(): number };

/** Runs a daemon on data dir `dir` connected to 127.0.0.1:`port`, gives `fn` its RPC, then stops it. */
async function withDaemon<T>(dir: string, port: number, fn: (rpc: Rpc) => Promise<T>): Promise<T> {
  fs.mkdirSync(dir, { recursive: true });
  const auth = `bench:${randomBytes(12).toString('hex')}`;
  const [user, password] = auth.split(':');
  const log = path.join(dir, 'daemon.log');
  const out = fs.openSync(log, 'w');
  const child = spawn(labConfig().bin.electrum, ['--regtest', '-D', dir, '--rpcuser', user, '--rpcpassword', password, 'daemon', '--oneserver', '--server', `127.0.0.1:${port}:t`], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  live.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', () => undefined);
  const failed = (what: string) => new Error(`Electrum daemon (${dir}): ${what}\n${tail(log)}`);
  let socket: string | undefined;
  try {
    socket = await Promise.race([rpcSocket(dir), exited.then((code) => Promise.reject(failed(`exited with ${code} before it listened`)))]);
    let id = 0;
    const call = <R>(method: string, params: Record<string, unknown> = {}, timeoutMs = STEP_MS.rpc) =>
      Promise.race([callDaemon<R>(socket!, auth, { jsonrpc: '2.0', id: ++id, method, params }, timeoutMs), exited.then((code) => Promise.reject(failed(`exited with ${code} during ${method}`)))]).catch((err: Error) => {
        throw err.message.includes(dir) ? err : failed(`${method}: ${err.message}`);
      });
    const rpc: Rpc = Object.assign(call, { cpuMs: () => cpuMsOf(child.pid!) });
    return await fn(rpc);
  } finally {
    // Asked to stop (it saves the wallet and closes its connection), and killed if it does not.
    if (socket && child.exitCode === null) await callDaemon(socket, auth, { jsonrpc: '2.0', id: 0, method: 'stop', params: {} }, STEP_MS.stop).catch(() => undefined);
    const code = await Promise.race([exited, sleep(STEP_MS.stop).then(() => 'timeout' as const)]);
    if (code === 'timeout') {
      killGroup(child);
      await exited;
    }
    live.delete(child);
  }
}

/** The daemon's RPC socket, once its lockfile names one (it writes it when listening). */
async function rpcSocket(dir: string): Promise<string> {
  const lockfile = path.join(dir, 'regtest', 'daemon');
  const deadline = Date.now() + STEP_MS.start;
  while (Date.now() < deadline) {
    const text = fs.existsSync(lockfile) ? fs.readFileSync(lockfile, 'utf8') : '';
    const m = /^\('unix', '([^']+)'/.exec(text);
    if (m) return m[1];
    await sleep(20);
  }
  throw new Error(`no RPC socket named in ${lockfile} within ${STEP_MS.start / 1000} s`);
}

function callDaemon<T>(socketPath: string, auth: string, body: object, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: '/', method: 'POST', auth, headers: { 'content-type': 'application/json' }, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        try {
          const reply = JSON.parse(text) as { result?: T; error?: { message: string } };
          if (reply.error) reject(new Error(reply.error.message));
          else resolve(reply.result as T);
        } catch {
          reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** A process's CPU time so far (user + system, /proc/PID/stat, in clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** "0.00335866" BTC → 335866 sat, exactly. */
function sats(btc: string): number {
  const [whole, frac = ''] = btc.split('.');
  return Number(whole) * 1e8 + Number(frac.padEnd(8, '0'));
}

function killGroup(c: ChildProcess): void {
  if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) return;
  try {
    process.kill(-c.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
