/**
 * The regtest lab as one unit: `labUp` installs and starts btcd, the Core-dialect adapter, the chain
 * generator and the Electrum servers (each as its file in `servers/` says, listed in
 * `servers/registry.ts`), and returns once every server is at the node's tip (and has the
 * generator's mempool); `labDown` stops exactly what `up` started, through pid files; `labStatus`
 * reports each component and each server's tip. Everything binds 127.0.0.1; all state lives in
 * `labConfig().stateDir`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ElectrumClient } from '../electrum/client';
import { scriptHashOfScript } from '../electrum/scripthash';
import { NodeRpc } from '../node/rpc';
import type { LabMiner } from './mine';
import { UserError } from '../core/user-error';
import { readCredentials, writeFreshCredentials } from './adapter/credentials';
import { startBtcd } from './btcd';
import { generateLabCertificates, labCertificateFiles } from './certificates';
import { LAB_DEFAULT_SEED, LAB_TIMEOUTS, labConfig, labPaths, type LabConfig, type LabPaths, type ServerSettings } from './config';
import type { Credentials } from './adapter/credentials';
import { portsOf, type ElectrumAsk, type LabServer } from './servers/lab-server';
import { LAB_COMPONENTS, LAB_SERVERS, labComponentPorts, labServer, type LabComponent, type LabOptional, type LabServerName, type RegisteredServer } from './servers/registry';
import { isVersionName, MAX_VERSIONS, versionDbDir, versionPorts, versionProblems, type LabVersion, type VersionName } from './versions';
import { prometheusReady, prometheusUrl, remoteWriteUrl, startPrometheus } from './prometheus';
import { labCpusText, runningPid, signalGroup, spawnDetached, stopComponent, waitReady, withLabLock, type LabProcess } from './processes';
import { cpuListText, pinProcess } from '../core/cpu-set';
import { makeDirs } from '../core/output-path';
import type { LimitFinding } from '../core/server-limits';
import type { ProfileName } from '../servers/profiles';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface LabUpOptions {
  seed?: string;
  without?: LabOptional[]; // servers (and Prometheus) to leave out; the full lab runs them all
  mempoolTxs?: number; // passed to the generator (its default when absent)
  scale?: number; // the chain's scale (1, the default: 51 addresses; 10: 600 addresses, histories to 3,300)
  skipInstall?: boolean;
  /** Pin every lab process to these CPUs (taskset), so a generator pinned elsewhere (`load --cpu`) never takes their time. */
  cpus?: number[];
  /** Servers to run in other versions beside the lab's own (`--with electrumx@1.20.0`); a lab already up gains or loses just these. */
  versions?: LabVersion[];
  log?: (line: string) => void;
}

export interface ElectrumEndpoint {
  url: string; // electrum://127.0.0.1:PORT (plain TCP)
  host: string;
  port: number;
}

export interface ComponentStatus {
  name: LabComponent;
  expected: boolean; // started by the last `up`
  running: boolean;
  pid: number | null;
}

/** A TLS listener of a lab server: its certificate is signed by the lab's own CA, `caFile`. */
export interface TlsEndpoint {
  url: string; // ssl://127.0.0.1:PORT, as `--server electrumx@ssl://127.0.0.1:PORT` takes it
  host: string;
  port: number;
  caFile: string; // PEM of the lab's CA: pass it to `--ca`
}

/** A server's WebSocket listeners, as `--server NAME=PROFILE@ws://…` (or wss:// with `--ca`) takes them. */
export interface WebSocketEndpoints {
  ws: ElectrumEndpoint & { tip: number | null; error?: string }; // url ws://127.0.0.1:PORT
  wss: TlsEndpoint & { tip: number | null; error?: string }; // url wss://127.0.0.1:PORT
}

export interface ServerStatus extends ElectrumEndpoint {
  running: boolean;
  tip: number | null;
  error?: string;
  tls?: TlsEndpoint & { tip: number | null; error?: string }; // a server with a `tls` port (ElectrumX, Fulcrum)
  websocket?: WebSocketEndpoints; // a server that serves WebSocket (ElectrumX, Fulcrum)
  rest?: string; // a server's HTTP REST API (Esplora's), http://127.0.0.1:PORT
}

/** A server the lab runs in another version (`lab up --with`), on ports of its own. */
export interface VersionStatus extends ElectrumEndpoint {
  name: VersionName;
  server: LabVersion['server'];
  version: string;
  running: boolean;
  pid: number | null;
  tip: number | null;
  error?: string;
}

export interface LabStatus {
  up: boolean; // every expected component runs and every expected server is at the node's tip
  /** The same for the lab's own components and servers, its servers in other versions aside. */
  ownUp: boolean;
  seed: string | null;
  stateDir: string;
  node: { rpcUrl: string; cookieFile: string; tip: number | null; error?: string };
  components: ComponentStatus[];
  electrum: Partial<Record<LabServerName, ServerStatus>>;
  /** Servers in other versions started with `--with`, in the order they were asked for. */
  versions: VersionStatus[];
  datasetPath: string;
  manifestPath: string;
  walletsPath: string;
  /** Set once blocks were mined or payments made after the chain was generated: datasets are stale. */
  changed?: { blocks: number; payments: number };
  /** The CPUs the lab's processes are pinned to (`lab up --cpus`); null: any. */
  cpus: string | null;
  /** The lab's Prometheus, when it runs: its page, and the URL `--out prometheus-rw=` takes. */
  prometheus: { url: string; remoteWrite: string } | null;
}

interface LabState {
  seed: string;
  scale?: number; // absent: 1
  components: LabComponent[];
  /** Servers in other versions, each with the slot of ports it holds; `starting` while an `up` adds it. */
  versions?: Array<LabVersion & { slot: number; starting?: boolean }>;
  startedAt: string;
  readyAt?: string;
  tipHeight?: number;
  /** Blocks mined and payments made since the chain was generated (`lab mine`, `load --notify`). */
  changed?: { blocks: number; payments: number };
  /** The settings beyond the lab's own that a server was last restarted with (a limit under test), by server. */
  settings?: Partial<Record<LabServerName, ServerSettings>>;
}

export async function labUp(opts: LabUpOptions = {}): Promise<LabStatus> {
  const paths = labPaths(labConfig());
  return withLabLock(paths, 'up', () => up(opts));
}

/**
 * What a stop (Ctrl-C) during `labUp` undoes: a lab it was starting goes down whole; on a lab that
 * was already up, only the servers in other versions it was adding stop, and the rest runs on.
 */
export async function labInterruptUp(): Promise<void> {
  const paths = labPaths(labConfig());
  await withLabLock(paths, 'interrupted up', async () => {
    const state = readState(paths);
    if (!state?.readyAt) {
      await down(paths);
      return;
    }
    const starting = (state.versions ?? []).filter((v) => v.starting);
    for (const v of starting) await stopComponent(paths, v.name, LAB_TIMEOUTS.stopMs);
    writeState(paths, { ...state, versions: (state.versions ?? []).filter((v) => !v.starting) });
  });
}

/** Stops every component that has a live pid file, newest first. Idempotent. */
export async function labDown(): Promise<Record<string, StopOutcome>> {
  const paths = labPaths(labConfig());
  return withLabLock(paths, 'down', () => down(paths));
}

type StopOutcome = 'not-running' | 'stopped' | 'killed';

async function up(opts: LabUpOptions): Promise<LabStatus> {
  const cfg = labConfig();
  const paths = labPaths(cfg);
  const log = opts.log ?? (() => undefined);
  const seed = opts.seed ?? LAB_DEFAULT_SEED;
  if (seed.length === 0) throw new UserError('--seed must not be empty');
  const scale = opts.scale ?? 1;
  if (!Number.isInteger(scale) || scale < 1 || scale > 20) throw new UserError(`--scale must be an integer in 1..20, got ${opts.scale}`);
  const without = new Set<LabComponent>(opts.without ?? []);
  const components = LAB_COMPONENTS.filter((c) => !without.has(c));
  const versions = opts.versions ?? [];
  const problems = versionProblems(versions);
  if (problems.length) throw new UserError(problems.join('; '));

  let current = await labStatus();
  const previous = readState(paths);
  if (previous && !previous.readyAt && current.components.some((c) => c.running)) {
    // An `up` that never finished (killed mid-way; we hold the lock, so it is not running).
    log('cleaning up after an interrupted `lab up`');
    await down(paths);
    current = await labStatus();
  }
  const same = current.seed === seed && (previous?.scale ?? 1) === scale && sameSet(current.components.filter((c) => c.expected).map((c) => c.name), components);
  if (current.ownUp && same && previous?.changed) {
    // Its datasets describe the chain as generated: a changed chain would fail every --verify.
    log(`the chain changed since its datasets were written (${previous.changed.blocks} blocks mined, ${previous.changed.payments} payments); starting afresh`);
    await down(paths);
    current = await labStatus();
  }
  if (current.components.some((c) => c.running)) {
    if (current.ownUp && same) {
      log(`already up (seed ${seed}${scale > 1 ? `, scale ${scale}` : ''}) at height ${current.node.tip}`);
      if (opts.cpus) {
        setLabCpus(paths, opts.cpus);
        // Running processes move now (every thread); restarts start pinned (processes.ts).
        for (const c of [...current.components, ...current.versions]) if (c.pid !== null) pinProcess(c.pid, opts.cpus, '--cpus');
        log(`lab processes pinned to CPUs ${cpuListText(opts.cpus)}`);
      }
      // Only the servers in other versions change: the chain and the lab's own servers stay.
      const changed = await reconcileVersions(cfg, paths, previous!, current, versions, scale, log);
      return opts.cpus || changed ? labStatus() : current;
    }
    throw new UserError(
      `the lab is already ${current.up ? 'up' : 'partly up'} (seed ${current.seed ?? 'unknown'}); run "npm run lab -- reset" (or "down") first`,
    );
  }

  const t0 = Date.now();
  const slotted = versions.map((v, slot) => ({ ...v, slot }));
  await checkPortsFree(cfg, slotted);
  setLabCpus(paths, opts.cpus ?? null);
  if (opts.cpus) log(`lab processes pinned to CPUs ${cpuListText(opts.cpus)}`);
  if (!opts.skipInstall) await runInstall([...components.map(installTargetOf), ...versions.map(installTarget)], log);
  // Loaded here, not at the top: `down` and `status` must work even if the generator is mid-edit.
  const generator = await import('./generator');

  makeDirs(cfg.stateDir);
  for (const c of LAB_COMPONENTS) fs.rmSync(path.join(paths.pidDir, `${c}.pid`), { force: true });
  const creds = writeFreshCredentials(paths.cookieFile);
  if (LAB_SERVERS.some((s) => s.tls && components.includes(s.name))) await generateLabCertificates(paths);
  const state: LabState = {
    seed,
    ...(scale > 1 ? { scale } : {}),
    components,
    ...(slotted.length ? { versions: slotted } : {}),
    startedAt: new Date().toISOString(),
  };
  writeState(paths, state);
  const rpc = new NodeRpc({ url: adapterUrl(cfg), cookieFile: paths.cookieFile, timeoutMs: 120_000 });
  try {
    log('starting btcd');
    await startBtcd(cfg, paths, creds, generator.miningAddress(seed));
    log('starting the Core-dialect adapter');
    await startAdapter(cfg, paths, rpc);
    log(`generating the chain (seed ${seed}${scale > 1 ? `, scale ${scale}` : ''})`);
    const t1 = Date.now();
    await generator.generateChain(rpc, {
      seed,
      datasetPath: paths.datasetPath,
      manifestPath: paths.manifestPath,
      walletsPath: paths.walletsPath,
      walletScale: scale,
      mempoolTxs: opts.mempoolTxs,
      ...generator.scaleShape(scale),
      log: (m) => log(`generator: ${m}`),
    });
    const tip = await rpc.call<number>('getblockcount');
    const watch = await mempoolWatch(rpc);
    log(`chain at height ${tip} with ${watch.length} mempool transactions (${secs(t1)} s); starting Electrum servers`);
    await Promise.all([
      ...LAB_SERVERS.filter((s) => components.includes(s.name)).map(async (s) => {
        const t2 = Date.now();
        const pid = startServer(cfg, paths, creds, s);
        await waitServerSynced(paths, s.name, s, electrumEndpoint(cfg, s), electrumTlsEndpoint(cfg, paths, s), pid, tip, watch, undefined, undefined, LAB_TIMEOUTS.readyMs * scale);
        log(`${s.name} at height ${tip}, mempool seen (${secs(t2)} s)`);
      }),
      startVersions(cfg, paths, creds, slotted, tip, watch, scale, log),
    ]);
    if (components.includes('prometheus')) {
      log('starting Prometheus');
      const pid = startPrometheus(cfg, paths, components);
      await waitReady(paths, 'prometheus', pid, 'ready', LAB_TIMEOUTS.readyMs, () => prometheusReady(cfg));
    }
    writeState(paths, { ...state, readyAt: new Date().toISOString(), tipHeight: tip });
    log(`lab up in ${secs(t0)} s`);
  } catch (err) {
    log('failed; stopping what was started');
    await down(paths).catch(() => undefined);
    throw err;
  } finally {
    rpc.close();
  }
  return labStatus();
}

async function down(paths: LabPaths): Promise<Record<string, StopOutcome>> {
  const outcome: Record<string, StopOutcome> = {};
  // Servers in other versions first, found by their pid files (the state file may be gone).
  for (const v of versionPidNames(paths)) outcome[v] = await stopComponent(paths, v, LAB_TIMEOUTS.stopMs);
  for (const c of [...LAB_COMPONENTS].reverse()) outcome[c] = await stopComponent(paths, c, LAB_TIMEOUTS.stopMs);
  fs.rmSync(paths.stateFile, { force: true });
  // Pinned CPUs belong to the lab that ran: a stopped lab is pinned to nothing.
  fs.rmSync(paths.cpusFile, { force: true });
  return outcome;
}

export async function labStatus(): Promise<LabStatus> {
  const cfg = labConfig();
  const paths = labPaths(cfg);
  const state = readState(paths);
  const components = LAB_COMPONENTS.map((name) => {
    const pid = runningPid(paths, name);
    return { name, expected: state?.components.includes(name) ?? false, running: pid !== null, pid };
  });
  const running = (n: LabComponent) => components.find((c) => c.name === n)!.running;

  const node: LabStatus['node'] = { rpcUrl: adapterUrl(cfg), cookieFile: paths.cookieFile, tip: null };
  if (running('adapter')) {
    const rpc = new NodeRpc({ url: adapterUrl(cfg), cookieFile: paths.cookieFile, timeoutMs: 5_000 });
    try {
      node.tip = await rpc.call<number>('getblockcount');
    } catch (err) {
      node.error = (err as Error).message;
    } finally {
      rpc.close();
    }
  }

  const servers = await Promise.all(
    LAB_SERVERS.map(async (s): Promise<[LabServerName, ServerStatus]> => {
      const ep = electrumEndpoint(cfg, s);
      const st: ServerStatus = { ...ep, running: running(s.name), tip: null };
      if (s.rest) st.rest = `http://${cfg.host}:${portsOf(cfg, s)[s.rest.port]}`;
      const tlsEp = electrumTlsEndpoint(cfg, paths, s);
      if (tlsEp) st.tls = { ...tlsEp, tip: null };
      const ws = webSocketEndpoints(cfg, paths, s);
      if (ws) st.websocket = ws;
      if (st.running) {
        const [plain, secure, overWs, overWss] = await Promise.allSettled([
          electrumTip(ep.host, ep.port),
          tlsEp ? electrumTlsTip(tlsEp) : Promise.resolve(null),
          ws ? electrumTip(ws.ws.host, ws.ws.port, { websocket: true }) : Promise.resolve(null),
          ws ? electrumTlsTip(ws.wss, { websocket: true }) : Promise.resolve(null),
        ]);
        if (plain.status === 'fulfilled') st.tip = plain.value;
        else st.error = (plain.reason as Error).message;
        for (const [endpoint, tip] of [[st.tls, secure], [ws?.ws, overWs], [ws?.wss, overWss]] as const) {
          if (!endpoint) continue;
          if (tip.status === 'fulfilled') endpoint.tip = tip.value;
          else endpoint.error = (tip.reason as Error).message;
        }
      }
      return [s.name, st];
    }),
  );
  const electrum: LabStatus['electrum'] = Object.fromEntries(servers);
  const versions = await Promise.all(
    (state?.versions ?? []).map(async ({ slot, ...v }): Promise<VersionStatus> => {
      const ep = versionEndpoint(cfg, slot);
      const pid = runningPid(paths, v.name);
      const st: VersionStatus = { ...v, ...ep, running: pid !== null, pid, tip: null };
      if (pid !== null) {
        try {
          st.tip = await electrumTip(ep.host, ep.port);
        } catch (err) {
          st.error = (err as Error).message;
        }
      }
      return st;
    }),
  );

  const ownUp =
    state !== null &&
    components.every((c) => !c.expected || c.running) &&
    node.tip !== null &&
    LAB_SERVERS.every(({ name: s }) => !state.components.includes(s) || everyListenerAt(electrum[s], node.tip));
  const up = ownUp && versions.every((v) => v.tip === node.tip);
  return {
    up,
    ownUp,
    seed: state?.seed ?? null,
    stateDir: cfg.stateDir,
    node,
    components,
    electrum,
    versions,
    datasetPath: paths.datasetPath,
    manifestPath: paths.manifestPath,
    walletsPath: paths.walletsPath,
    ...(state?.changed ? { changed: state.changed } : {}),
    cpus: labCpusText(paths),
    prometheus: running('prometheus') ? { url: prometheusUrl(cfg), remoteWrite: remoteWriteUrl(cfg) } : null,
  };
}

/** A server is up when each of its listeners (TCP, TLS, WebSocket) answers the node's tip. */
function everyListenerAt(st: ServerStatus | undefined, tip: number | null): boolean {
  if (!st) return false;
  return [st, st.tls, st.websocket?.ws, st.websocket?.wss].every((listener) => listener === undefined || listener.tip === tip);
}

function electrumEndpoint(cfg: LabConfig, s: LabServer): ElectrumEndpoint {
  const port = portsOf(cfg, s).electrum;
  return { url: `electrum://${cfg.host}:${port}`, host: cfg.host, port };
}

/** The server's TLS listener, if it has one (ElectrumX, Fulcrum; electrs and Esplora have no TLS of their own). */
function electrumTlsEndpoint(cfg: LabConfig, paths: LabPaths, s: LabServer): TlsEndpoint | null {
  if (!s.tls) return null;
  const port = portsOf(cfg, s)[s.tls];
  return { url: `ssl://${cfg.host}:${port}`, host: cfg.host, port, caFile: labCertificateFiles(paths).caFile };
}

/** The server's WebSocket listeners, if it has them (ElectrumX, Fulcrum); wss:// on the lab CA's certificate. */
function webSocketEndpoints(cfg: LabConfig, paths: LabPaths, s: LabServer): WebSocketEndpoints | null {
  if (!s.websocket) return null;
  const ports = portsOf(cfg, s);
  const [ws, wss] = [ports[s.websocket.plain], ports[s.websocket.tls]];
  return {
    ws: { url: `ws://${cfg.host}:${ws}`, host: cfg.host, port: ws, tip: null },
    wss: { url: `wss://${cfg.host}:${wss}`, host: cfg.host, port: wss, caFile: labCertificateFiles(paths).caFile, tip: null },
  };
}

/** A server in another version: plain TCP on its slot's port. */
function versionEndpoint(cfg: LabConfig, slot: number): ElectrumEndpoint {
  const port = versionPorts(cfg, slot).electrum;
  return { url: `electrum://${cfg.host}:${port}`, host: cfg.host, port };
}

/** What scripts/install-lab.sh is asked for to have a version installed: `electrumx@1.20.0`. */
function installTarget(v: LabVersion): string {
  return `${labServer(v.server).install.target}@${v.version}`;
}

/** What scripts/install-lab.sh is asked for to have a component installed (the adapter is ours: none). */
function installTargetOf(c: LabComponent): string {
  return LAB_SERVERS.find((s) => s.name === c)?.install.target ?? c;
}

/** Servers in other versions that have a pid file: what `down` must stop besides the components. */
function versionPidNames(paths: LabPaths): VersionName[] {
  let files: string[];
  try {
    files = fs.readdirSync(paths.pidDir);
  } catch {
    return [];
  }
  const components: readonly string[] = LAB_COMPONENTS;
  return files
    .filter((f) => f.endsWith('.pid'))
    .map((f) => f.slice(0, -'.pid'.length))
    .filter((n): n is VersionName => !components.includes(n) && isVersionName(n));
}

/** Starts servers in other versions on fresh indexes and waits until each has the node's tip and mempool. */
async function startVersions(
  cfg: LabConfig,
  paths: LabPaths,
  creds: Credentials,
  versions: Array<LabVersion & { slot: number }>,
  tip: number,
  watch: MempoolProbe[],
  scale: number,
  log: (line: string) => void,
): Promise<void> {
  await Promise.all(
    versions.map(async (v) => {
      const t0 = Date.now();
      const server = labServer(v.server);
      const lab = { cfg, paths, creds, ports: versionPorts(cfg, v.slot) };
      const pid = spawnDetached(paths, { name: v.name, ...server.otherVersions!.start(lab, v.version, versionDbDir(cfg, v.name)) });
      await waitServerSynced(paths, v.name, server, versionEndpoint(cfg, v.slot), null, pid, tip, watch, undefined, undefined, LAB_TIMEOUTS.readyMs * scale);
      log(`${v.name} at height ${tip}, mempool seen (${secs(t0)} s)`);
    }),
  );
}

/**
 * Brings a running lab's servers in other versions to `wanted`: stops those no longer asked for,
 * starts the new ones on free slots of ports (each indexes the running chain from scratch). The
 * lab's own servers and its chain are left as they are. Returns whether anything changed.
 */
async function reconcileVersions(
  cfg: LabConfig,
  paths: LabPaths,
  state: LabState,
  current: LabStatus,
  wanted: LabVersion[],
  scale: number,
  log: (line: string) => void,
): Promise<boolean> {
  const have = state.versions ?? [];
  // A version that stopped, or whose start was cut short, is started again if still asked for.
  const serving = (name: string) => current.versions.some((v) => v.name === name && v.tip !== null && v.tip === current.node.tip);
  const kept = have.filter((h) => wanted.some((w) => w.name === h.name) && serving(h.name));
  const dropped = have.filter((h) => !kept.includes(h));
  const taken = new Set(kept.map((k) => k.slot));
  const free = Array.from({ length: MAX_VERSIONS }, (_, slot) => slot).filter((slot) => !taken.has(slot));
  const added = wanted.filter((w) => !kept.some((h) => h.name === w.name)).map((w, i) => ({ ...w, slot: free[i] }));
  if (dropped.length === 0 && added.length === 0) return false;
  for (const d of dropped) {
    await stopComponent(paths, d.name, LAB_TIMEOUTS.stopMs);
    if (!wanted.some((w) => w.name === d.name)) log(`${d.name} stopped (not asked for)`);
  }
  writeState(paths, { ...state, versions: kept });
  if (added.length === 0) return true;
  await checkPortsFree(cfg, added, false);
  // Recorded before the install: a Ctrl-C from here on stops just these (labInterruptUp).
  writeState(paths, { ...state, versions: [...kept, ...added.map((a) => ({ ...a, starting: true }))] });
  await runInstall(added.map(installTarget), log);
  const rpc = new NodeRpc({ url: adapterUrl(cfg), cookieFile: paths.cookieFile, timeoutMs: 30_000 });
  try {
    const tip = await rpc.call<number>('getblockcount');
    await startVersions(cfg, paths, readCredentials(paths.cookieFile), added, tip, await mempoolWatch(rpc), scale, log);
    writeState(paths, { ...state, versions: [...kept, ...added] });
  } catch (err) {
    // The lab stays as it was before: the new versions go again, the rest runs on.
    log('failed; stopping the servers in other versions just started');
    for (const a of added) await stopComponent(paths, a.name, LAB_TIMEOUTS.stopMs).catch(() => undefined);
    writeState(paths, { ...state, versions: kept });
    throw err;
  } finally {
    rpc.close();
  }
  return true;
}

/**
 * Starts one lab server, with `settings` beyond the lab's own, on a fresh index (its datadir wiped)
 * unless `keepIndex`; returns its pid.
 */
function startServer(cfg: LabConfig, paths: LabPaths, creds: Credentials, s: RegisteredServer, settings: ServerSettings = {}, keepIndex = false): number {
  if (!keepIndex) fs.rmSync(s.datadir(cfg.stateDir), { recursive: true, force: true });
  return spawnDetached(paths, { name: s.name, ...s.start({ cfg, paths, creds, ports: portsOf(cfg, s) }, settings) });
}

function adapterUrl(cfg: LabConfig): string {
  return `http://${cfg.host}:${cfg.ports.adapter}`;
}

/** The adapter runs as its own process (`node --import tsx`), so it outlives the CLI that starts it. */
async function startAdapter(cfg: LabConfig, paths: LabPaths, rpc: NodeRpc): Promise<void> {
  const pid = spawnDetached(paths, {
    name: 'adapter',
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'src', 'lab', 'adapter', 'main.ts'),
      '--port',
      String(cfg.ports.adapter),
      '--btcd-port',
      String(cfg.ports.btcdRpc),
      '--cookie',
      paths.cookieFile,
    ],
    cwd: REPO_ROOT, // `--import tsx` resolves from here
  });
  await waitReady(paths, 'adapter', pid, 'answering RPC', LAB_TIMEOUTS.readyMs, () => rpc.call('getblockchaininfo'));
}

/** An address whose whole confirmed history the server must list before its index counts as built. */
export interface IndexProbe {
  scripthash: string;
  confirmed: number;
}

interface MempoolProbe {
  txid: string;
  scripthash: string; // of one of its outputs: its history must list the tx as unconfirmed
}

/** One output scripthash per node mempool transaction, to check each server's mempool by. */
async function mempoolWatch(rpc: NodeRpc): Promise<MempoolProbe[]> {
  const txids = await rpc.call<string[]>('getrawmempool');
  const txs = await rpc.batch<{ vout: Array<{ scriptPubKey: { hex: string } }> }>(
    txids.map((id) => ({ method: 'getrawtransaction', params: [id, 1] })),
  );
  return txids.map((txid, i) => {
    // OP_RETURN outputs are not indexed by Electrum servers.
    const out = txs[i].vout.find((o) => !o.scriptPubKey.hex.startsWith('6a')) ?? txs[i].vout[0];
    return { txid, scripthash: scriptHashOfScript(Buffer.from(out.scriptPubKey.hex, 'hex')) };
  });
}

async function waitServerSynced(
  paths: LabPaths,
  s: LabProcess,
  server: LabServer,
  { host, port }: ElectrumEndpoint,
  tlsEp: TlsEndpoint | null,
  pid: number,
  tip: number,
  watch: MempoolProbe[],
  pollMs?: number,
  indexed?: IndexProbe,
  readyMs: number = LAB_TIMEOUTS.readyMs,
): Promise<void> {
  const what = `at the node's tip ${tip} with its mempool${tlsEp ? ', TLS verified with the lab CA' : ''}`;
  await waitReady(paths, s, pid, what, readyMs, async () => {
    const ask: ElectrumAsk = (calls) => electrumCalls(host, port, calls);
    await server.beforeTip?.(ask, tip);
    const height = await electrumTip(host, port);
    if (height !== tip) throw new Error(`${s} at height ${height}, node at ${tip}`);
    // ElectrumX opens its client ports only once caught up, and only logs a listener that fails:
    // the TLS one is checked on its own, verified against the lab CA as a user's `--ca` would be.
    if (tlsEp) {
      const secure = await electrumTlsTip(tlsEp);
      if (secure !== tip) throw new Error(`${s} over TLS at height ${secure}, node at ${tip}`);
    }
    if (indexed) {
      // A tip is not an index: electrs answers the tip from headers before its index is built.
      const [history] = (await electrumCalls(host, port, [{ method: 'blockchain.scripthash.get_history', params: [indexed.scripthash] }])) as Array<Array<{ height: number }>>;
      const n = history.filter((e) => e.height > 0).length;
      if (n < indexed.confirmed) throw new Error(`${s} indexed ${n} of ${indexed.confirmed} transactions of the probe address`);
    }
    if (watch.length === 0) return height;
    // get_history, not get_mempool: electrs 0.12 and Esplora lack get_mempool. Unconfirmed entries have
    // height 0 (or -1 with unconfirmed parents), per the protocol's get_history.
    const hashes = [...new Set(watch.map((w) => w.scripthash))];
    const histories = (await electrumCalls(host, port, hashes.map((h) => ({ method: 'blockchain.scripthash.get_history', params: [h] })))) as Array<
      Array<{ tx_hash: string; height: number }>
    >;
    const seen = new Set(histories.flat().filter((e) => e.height <= 0).map((e) => e.tx_hash));
    const missing = watch.filter((w) => !seen.has(w.txid)).length;
    if (missing > 0) throw new Error(`${s} misses ${missing} of ${watch.length} mempool transactions`);
    return height;
  }, pollMs);
}

/** The server's tip height, from `blockchain.headers.subscribe`. */
export async function electrumTip(host: string, port: number, o: { websocket?: boolean } = {}): Promise<number> {
  const [tip] = (await electrumCalls(host, port, [{ method: 'blockchain.headers.subscribe', params: [] }], 5_000, undefined, o.websocket)) as Array<{ height: number }>;
  return tip.height;
}

/** The tip through the TLS port (or wss://), its certificate verified with the lab CA as `--ca FILE` does. */
async function electrumTlsTip(ep: TlsEndpoint, o: { websocket?: boolean } = {}): Promise<number> {
  const tls = { ca: fs.readFileSync(ep.caFile) };
  const [tip] = (await electrumCalls(ep.host, ep.port, [{ method: 'blockchain.headers.subscribe', params: [] }], 5_000, tls, o.websocket)) as Array<{ height: number }>;
  return tip.height;
}

/** A short-lived connection for readiness checks: results in the order of `calls`, any error fails. */
async function electrumCalls(
  host: string,
  port: number,
  calls: Array<{ method: string; params: unknown[] }>,
  timeoutMs = 5_000,
  tls?: { ca: Buffer },
  websocket?: boolean,
): Promise<unknown[]> {
  const client = await ElectrumClient.connect({
    host,
    port,
    ...(websocket ? { websocket } : {}),
    timeoutMs,
    keepaliveMs: 0,
    skipServerInfo: true,
    clientName: 'electrum-bench-lab',
    ...(tls ? { tls: true, ca: tls.ca } : {}),
  });
  try {
    return await Promise.all(calls.map((c) => client.request(c.method, c.params)));
  } finally {
    client.close();
  }
}

/**
 * Fails before anything starts if another process listens on one of the lab's ports. Probed by
 * connecting, not by a trial listen: a trial listen also fails for a minute after a server closed
 * connections itself (its side's sockets linger in TIME_WAIT, as Esplora's do), though the
 * servers themselves can bind again.
 */
async function checkPortsFree(cfg: LabConfig, versions: Array<LabVersion & { slot: number }> = [], components = true): Promise<void> {
  const ports = [
    ...(components ? labComponentPorts(cfg) : []),
    ...versions.flatMap((v) => Object.entries(versionPorts(cfg, v.slot)).map(([what, port]): [string, number] => [`${v.name} ${what}`, port])),
  ];
  for (const [name, port] of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const sock = net.connect({ port, host: cfg.host });
      sock.setTimeout(1_000, () => sock.destroy(new Error('timeout')));
      sock.once('connect', () => {
        sock.destroy();
        resolve(false);
      });
      sock.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    if (!free) {
      throw new UserError(`port ${cfg.host}:${port} (${name}) is in use by another process; stop it or pick other ports with ELECTRUM_BENCH_LAB_PORT_BASE`);
    }
  }
}

/**
 * scripts/install-lab.sh for these components; it is idempotent and fast once cached. A component
 * that cannot be had (a missing tool, a source archive that is not there) is a UserError naming it.
 */
export async function runInstall(components: string[], log: (line: string) => void): Promise<void> {
  const targets = components.filter((c) => c !== 'adapter');
  log(`installing/checking ${targets.join(', ')} (scripts/install-lab.sh)`);
  const tail: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('bash', [path.join(REPO_ROOT, 'scripts', 'install-lab.sh'), ...targets], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const relay = (chunk: Buffer) => {
      process.stderr.write(chunk);
      tail.push(...chunk.toString('utf8').split('\n').filter((l) => l.trim() !== ''));
      tail.splice(0, Math.max(0, tail.length - 20));
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    const timer = setTimeout(() => child.kill('SIGTERM'), LAB_TIMEOUTS.installMs);
    child.on('error', reject);
    child.on('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (code === 0) return;
  // Exit 2 is install-lab.sh's "a tool is missing" (its message names the tool).
  const said = [...tail].reverse().find((l) => l.startsWith('[install-lab]'));
  if (code === 2) throw new UserError(said ? said.replace('[install-lab] ', 'install-lab: ') : 'install-lab.sh: a required tool is missing');
  throw new Error(`scripts/install-lab.sh failed (exit ${code}):\n${tail.join('\n')}`);
}

function readState(paths: LabPaths): LabState | null {
  try {
    return JSON.parse(fs.readFileSync(paths.stateFile, 'utf8')) as LabState;
  } catch {
    return null;
  }
}

/** Records the CPUs every lab process starts on; null: any (the file goes). */
function setLabCpus(paths: LabPaths, cpus: number[] | null): void {
  if (cpus === null) {
    fs.rmSync(paths.cpusFile, { force: true });
    return;
  }
  makeDirs(path.dirname(paths.cpusFile));
  fs.writeFileSync(paths.cpusFile, cpuListText(cpus) + '\n');
}

function writeState(paths: LabPaths, state: LabState): void {
  fs.writeFileSync(paths.stateFile, JSON.stringify(state, null, 2) + '\n');
}

function sameSet<T>(a: T[], b: T[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function secs(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

/**
 * Kills one running Electrum server of the lab and starts it again on a fresh index, waiting
 * until it is back at the node's tip: a real outage for fault tests, or a restart with other
 * `settings` (a limit under test). Returns how long its port was down (from the kill to the server
 * answering at the tip again).
 */
export async function labRestartServer(
  name: LabServerName,
  opts: {
    killSignal?: NodeJS.Signals;
    settings?: ServerSettings;
    /** Called right after the new process is spawned, with its pid (an index build's clock starts here). */
    onStarted?: (pid: number) => void;
    /** How often readiness is probed; finer for timing an index build. */
    pollMs?: number;
    /** Ready at the node's tip alone, without the mempool probe (an index build's end). */
    tipOnly?: boolean;
    /** Ready only once this address's whole confirmed history is listed (the index is built). */
    indexed?: IndexProbe;
  } = {},
): Promise<{ downMs: number; indexMs: number }> {
  const cfg = labConfig();
  const paths = labPaths(cfg);
  const s = labServer(name);
  return withLabLock(paths, `restart ${name}`, async () => {
    const pid = runningPid(paths, name);
    if (pid === null) throw new UserError(`lab ${name} is not running; start the lab with: npm run lab -- up`);
    const t0 = Date.now();
    let startedAt = t0;
    if (opts.killSignal) signalGroup(pid, opts.killSignal);
    await stopComponent(paths, name, 5_000);
    const rpc = new NodeRpc({ url: adapterUrl(cfg), cookieFile: paths.cookieFile, timeoutMs: 30_000 });
    try {
      const tip = await rpc.call<number>('getblockcount');
      const watch = await mempoolWatch(rpc);
      const creds = readCredentials(paths.cookieFile);
      const started = startServer(cfg, paths, creds, s, opts.settings);
      startedAt = Date.now();
      recordSettings(paths, name, opts.settings ?? {});
      opts.onStarted?.(started);
      // A server started with other settings may refuse the very histories the mempool probe asks
      // for (a limit under test): its readiness is then its tip alone.
      const limited = Object.keys(opts.settings ?? {}).length > 0;
      await waitServerSynced(paths, name, s, electrumEndpoint(cfg, s), electrumTlsEndpoint(cfg, paths, s), started, tip, limited || opts.tipOnly ? [] : watch, opts.pollMs, opts.indexed);
    } finally {
      rpc.close();
    }
    return { downMs: Date.now() - t0, indexMs: Date.now() - startedAt };
  });
}

/** Keeps what a server now runs with beyond the lab's settings, for its limits (`labLimitsAt`). */
function recordSettings(paths: LabPaths, name: LabServerName, settings: ServerSettings): void {
  const state = readState(paths);
  if (!state) return;
  const { [name]: _was, ...others } = state.settings ?? {};
  writeState(paths, { ...state, settings: Object.keys(settings).length ? { ...others, [name]: settings } : others });
}

/**
 * The limits the lab's configuration sets on the running lab server listening at `target`'s
 * address (one of its ports, or a server in another version), with the settings it was last
 * started with; null when none of the lab's listens there. Read from the lab's config, state and
 * pid files alone: no server is asked anything (the pre-flight doctor refuses before any
 * connection).
 */
export function labLimitsAt(target: { host: string; port: number; profile: ProfileName }): LimitFinding[] | null {
  const cfg = labConfig();
  const paths = labPaths(cfg);
  if (target.host !== cfg.host && !(target.host === 'localhost' && cfg.host === '127.0.0.1')) return null;
  const state = readState(paths);
  const s = LAB_SERVERS.find((x) => Object.values(portsOf(cfg, x)).includes(target.port));
  if (s) return runningPid(paths, s.name) === null ? null : s.limits(state?.settings?.[s.name] ?? {}, target.profile);
  const version = (state?.versions ?? []).find((v) => versionPorts(cfg, v.slot).electrum === target.port);
  return version && runningPid(paths, version.name) !== null ? labServer(version.server).limits({}, target.profile) : null;
}

/**
 * A cold start of lab servers (`bench --cold`): every one of `names` stopped, then `whileStopped`
 * (the bench drops the OS page cache there, so no page of a stopped server's index stays cached and
 * none is pinned by its mappings), then each started again on the index it had, not a fresh one (a
 * rebuilt index would sit in the page cache and the server's own caches, just written), until each
 * answers at the node's tip with its mempool. The node and the adapter keep running.
 */
export async function labColdRestart(names: readonly LabServerName[], whileStopped: () => Promise<void>): Promise<void> {
  const cfg = labConfig();
  const paths = labPaths(cfg);
  await withLabLock(paths, `cold restart of ${names.join(', ')}`, async () => {
    for (const name of names) {
      if (runningPid(paths, name) === null) throw new UserError(`lab ${name} is not running; start the lab with: npm run lab -- up`);
    }
    for (const name of names) await stopComponent(paths, name, 5_000);
    await whileStopped();
    const rpc = new NodeRpc({ url: adapterUrl(cfg), cookieFile: paths.cookieFile, timeoutMs: 30_000 });
    try {
      const tip = await rpc.call<number>('getblockcount');
      const watch = await mempoolWatch(rpc);
      const creds = readCredentials(paths.cookieFile);
      // Each comes back with the settings it last ran with (a --param's, left by a stopped
      // sweep): a cold pass measures the server the warm ones do, and its limits stay as recorded.
      const last = readState(paths)?.settings ?? {};
      const started = names.map((name) => ({ s: labServer(name), settings: last[name] ?? {}, pid: startServer(cfg, paths, creds, labServer(name), last[name] ?? {}, true) }));
      for (const { s, settings, pid } of started) {
        const limited = Object.keys(settings).length > 0;
        await waitServerSynced(paths, s.name, s, electrumEndpoint(cfg, s), electrumTlsEndpoint(cfg, paths, s), pid, tip, limited ? [] : watch);
      }
    } finally {
      rpc.close();
    }
  });
}

/**
 * A miner on the running lab's node, for `lab mine` and `load --notify`. Whatever it mines or pays
 * is recorded in the lab's state: the datasets no longer describe the chain, `lab status` says so,
 * and the next `lab up` starts afresh instead of reusing it.
 */
export async function labMiner(): Promise<{ miner: LabMiner; recordChange: (blocks: number, payments: number) => void }> {
  const cfg = labConfig();
  const paths = labPaths(cfg);
  const status = await labStatus();
  const state = readState(paths);
  // The node is what mines; a server still catching up with the last block does not matter here.
  if (status.node.tip === null || !state) throw new UserError('the lab is not up: start it with "npm run lab -- up"');
  const rpc = new NodeRpc({ url: adapterUrl(cfg), cookieFile: paths.cookieFile, timeoutMs: 30_000 });
  const { LabMiner } = await import('./mine'); // as the generator: `status` must not depend on it
  return {
    miner: new LabMiner(rpc, state.seed),
    recordChange: (blocks, payments) => {
      const now = readState(paths) ?? state;
      const before = now.changed ?? { blocks: 0, payments: 0 };
      writeState(paths, { ...now, changed: { blocks: before.blocks + blocks, payments: before.payments + payments } });
    },
  };
}

/**
 * `lab mine`: pays the addresses (if any) in one transaction, mines `blocks` blocks, then waits up
 * to `waitMs` for every server to report the new tip. Returns the heights mined and the lab's
 * status at the end (up only when every server caught up).
 */
export async function labMine(
  opts: { blocks: number; pay: string[]; amount: number; waitMs?: number },
  log: (line: string) => void,
): Promise<{ heights: number[]; status: LabStatus }> {
  const { miner, recordChange } = await labMiner();
  if (opts.pay.length) {
    const txid = await miner.pay(opts.pay, opts.amount);
    recordChange(0, 1);
    log(`paid ${opts.amount} sat to each of ${opts.pay.length} addresses in ${txid}`);
  }
  const heights: number[] = [];
  for (let i = 0; i < opts.blocks; i++) {
    heights.push((await miner.mineOne()).height);
    recordChange(1, 0);
  }
  log(`mined ${opts.blocks} block${opts.blocks > 1 ? 's' : ''}: height ${heights[0]}${heights.length > 1 ? `..${heights[heights.length - 1]}` : ''}`);
  const until = Date.now() + (opts.waitMs ?? 30_000);
  let status = await labStatus();
  while (!status.up && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    status = await labStatus();
  }
  return { heights, status };
}
