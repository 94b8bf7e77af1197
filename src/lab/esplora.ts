/**
 * Esplora's backend (Blockstream's electrs, `new-index` branch), pointed at the adapter with
 * `--jsonrpc-import`: it fetches blocks over JSON-RPC (getblock HASH false) instead of reading
 * bitcoind's block files, which btcd does not have. It takes credentials from `--cookie` (argv,
 * visible in ps) or from `<daemon-dir>/regtest/.cookie`: the lab writes the latter, mode 0600.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Credentials } from './adapter/credentials';
import type { LabConfig, LabPaths, ServerSettings } from './config';
import { spawnDetached } from './processes';

/**
 * The lab's own limits: the defaults (`--electrum-txs-limit 500`, `--utxos-limit 500`) refuse the
 * lab's largest addresses with "Too many history entries"; raised, every lab address is served.
 * A test restarts Esplora with the defaults to see the refusals.
 */
export const ESPLORA_LAB_LIMITS: ServerSettings = { 'electrum-txs-limit': '100000', 'utxos-limit': '100000' };

export function esploraArgs(cfg: LabConfig, paths: LabPaths, settings: ServerSettings): string[] {
  const h = cfg.host;
  const args = [
    '--network',
    'regtest',
    '--jsonrpc-import',
    '--daemon-rpc-addr',
    `${h}:${cfg.ports.adapter}`,
    '--daemon-dir',
    paths.esploraDir,
    '--db-dir',
    path.join(paths.esploraDir, 'db'),
    '--electrum-rpc-addr',
    `${h}:${cfg.ports.esplora}`,
    '--http-addr',
    `${h}:${cfg.ports.esploraHttp}`,
    '--monitoring-addr',
    `${h}:${cfg.ports.esploraMonitoring}`,
  ];
  // `verbosity: N` is -v repeated N times (1 = warnings, the lab's; 3 = debug, whose lines
  // index-bench reads its phases from); every other setting is a --flag.
  const { verbosity = '1', ...flags } = settings;
  args.push(`-${'v'.repeat(Math.max(1, Number(verbosity) || 1))}`);
  for (const [name, value] of Object.entries({ ...ESPLORA_LAB_LIMITS, ...flags })) args.push(`--${name}`, value);
  return args;
}

/** Starts Esplora on a wiped index; returns its pid. Readiness is checked by the caller. */
export function startEsplora(cfg: LabConfig, paths: LabPaths, creds: Credentials, settings: ServerSettings = {}): number {
  fs.rmSync(paths.esploraDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(paths.esploraDir, 'regtest'), { recursive: true });
  fs.writeFileSync(path.join(paths.esploraDir, 'regtest', '.cookie'), `${creds.user}:${creds.password}`, { mode: 0o600 });
  return spawnDetached(paths, { name: 'esplora', command: cfg.bin.esplora, args: esploraArgs(cfg, paths, settings) });
}
