/**
 * The lab's node: btcd on regtest, bound to 127.0.0.1, RPC without TLS (the adapter in front of it
 * is the only client). Flags per lab-notes; the config file is the lab's own (mode 0600, holding only
 * the RPC credentials, so they stay out of `ps`) so no user btcd.conf leaks in,
 * `--txindex` because Electrum servers fetch whole transactions, `--miningaddr` so `generate`
 * pays a key the chain generator holds. btcd deletes its regtest chain at every start, so its
 * datadir is wiped too and every start is a fresh chain.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BtcdClient } from './adapter/btcd-client';
import type { Credentials } from './adapter/credentials';
import { LAB_TIMEOUTS, type LabConfig, type LabPaths } from './config';
import { spawnDetached, waitReady } from './processes';
import { makeDirs } from '../core/output-path';

function btcdConfFile(paths: LabPaths): string {
  return path.join(paths.btcdDir, 'btcd.conf');
}

export function btcdArgs(cfg: LabConfig, paths: LabPaths, miningAddress: string): string[] {
  const host = cfg.host;
  return [
    '--regtest',
    `--datadir=${paths.btcdDir}`,
    `--logdir=${path.join(paths.btcdDir, 'logs')}`,
    `--configfile=${btcdConfFile(paths)}`,
    `--listen=${host}:${cfg.ports.btcdP2p}`,
    `--rpclisten=${host}:${cfg.ports.btcdRpc}`,
    '--notls',
    '--nodnsseed',
    '--noonion',
    '--txindex',
    // The adapter, ElectrumX and electrs all hold keep-alive connections; btcd's default is 10.
    '--rpcmaxclients=100',
    `--miningaddr=${miningAddress}`,
  ];
}

/** Starts btcd on a wiped datadir and waits until its RPC answers; returns its pid. */
export async function startBtcd(cfg: LabConfig, paths: LabPaths, creds: Credentials, miningAddress: string): Promise<number> {
  fs.rmSync(paths.btcdDir, { recursive: true, force: true });
  makeDirs(paths.btcdDir);
  fs.writeFileSync(btcdConfFile(paths), `[Application Options]\nrpcuser=${creds.user}\nrpcpass=${creds.password}\n`, { mode: 0o600 });
  const pid = spawnDetached(paths, { name: 'btcd', command: cfg.bin.btcd, args: btcdArgs(cfg, paths, miningAddress) });
  const btcd = new BtcdClient(cfg.host, cfg.ports.btcdRpc, creds, 5_000);
  try {
    await waitReady(paths, 'btcd', pid, 'answering RPC', LAB_TIMEOUTS.readyMs, () => btcd.get<number>('getblockcount'));
  } finally {
    btcd.close();
  }
  return pid;
}
