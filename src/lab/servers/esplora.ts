/**
 * Esplora's backend (Blockstream's electrs, `new-index` branch), pointed at the adapter with
 * `--jsonrpc-import`: it fetches blocks over JSON-RPC (getblock HASH false) instead of reading
 * bitcoind's block files, which btcd does not have. It takes credentials from `--cookie` (argv,
 * visible in ps) or from `<daemon-dir>/regtest/.cookie`: the lab writes the latter, mode 0600.
 * It is in no registry: scripts/install-lab.sh builds it from source at this commit.
 * mempool.space's fork (mempool-electrs.ts) starts, logs and indexes the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ServerSettings } from '../config';
import { builtAt, type LabContext, type LabServer, type Launch } from './lab-server';
import type { PhaseRules } from '../../indexing/phases';
import { esploraLimits } from '../../servers/known-limits';

const COMMIT = 'abfbce73eb0504630a09f1e6599114ef4fa25bda';

/**
 * The lab's own limits: the defaults (`--electrum-txs-limit 500`, `--utxos-limit 500`) refuse the
 * lab's largest addresses with "Too many history entries"; raised, every lab address is served.
 * A test restarts Esplora with the defaults to see the refusals. mempool's fork has the same two.
 */
export const ESPLORA_LAB_LIMITS: ServerSettings = { 'electrum-txs-limit': '100000', 'utxos-limit': '100000' };

/** Its index, and the daemon dir where it reads the lab cookie (regtest/.cookie). */
const datadir = (stateDir: string) => path.join(stateDir, 'esplora');

/**
 * Writes the lab cookie into `dir` (the daemon dir, with the index in `db/`; the lab wipes it before
 * a start on a fresh index), and says how Blockstream's electrs or a fork of it starts on the lab:
 * `binary` with the lab's limits, then `settings`.
 */
export function electrsForkLaunch(binary: string, dir: string, { cfg, creds, ports }: LabContext<'electrum' | 'http' | 'monitoring'>, settings: ServerSettings): Launch {
  fs.mkdirSync(path.join(dir, 'regtest'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'regtest', '.cookie'), `${creds.user}:${creds.password}`, { mode: 0o600 });
  const h = cfg.host;
  const args = [
    '--network',
    'regtest',
    '--jsonrpc-import',
    '--daemon-rpc-addr',
    `${h}:${cfg.ports.adapter}`,
    '--daemon-dir',
    dir,
    '--db-dir',
    path.join(dir, 'db'),
    '--electrum-rpc-addr',
    `${h}:${ports.electrum}`,
    '--http-addr',
    `${h}:${ports.http}`,
    '--monitoring-addr',
    `${h}:${ports.monitoring}`,
  ];
  // `verbosity: N` is -v repeated N times (1 = warnings, the lab's; 3 = debug, whose lines
  // index-bench reads its phases from); every other setting is a --flag.
  const { verbosity = '1', ...flags } = settings;
  args.push(`-${'v'.repeat(Math.max(1, Number(verbosity) || 1))}`);
  for (const [name, value] of Object.entries({ ...ESPLORA_LAB_LIMITS, ...flags })) args.push(`--${name}`, value);
  return { command: binary, args };
}

/** index-bench's phases of an index build, from the debug lines (-vvv) of src/new_index/schema.rs and db.rs. */
export const ELECTRS_FORK_INDEX: { phases: PhaseRules; observe: ServerSettings } = {
  phases: [
    [/opening DB/, 'opening the index'],
    [/adding transactions from/, 'adding transactions'],
    [/starting full compaction/, 'compaction'],
    [/indexing history from/, 'indexing history'],
    [/flushing to disk/, 'flushing'],
    [/updating synced tip/, 'finishing'],
  ],
  observe: { verbosity: '3' },
};

export const esplora: LabServer<'esplora', 'http' | 'monitoring'> = {
  name: 'esplora',
  title: 'Esplora',
  profile: 'esplora',
  version: COMMIT,
  ports: { electrum: 8, http: 9, monitoring: 10 },
  rest: { port: 'http', profile: 'esplora-rest' },
  metrics: 'monitoring',
  install: { target: 'esplora', path: (home) => path.join(builtAt(home, 'esplora', COMMIT), 'bin', 'electrs'), fromSource: true },
  datadir,
  start: (lab, settings) => electrsForkLaunch(esplora.install.path(lab.cfg.home), datadir(lab.cfg.stateDir), lab, settings),
  limits: (settings, profile) => esploraLimits({ ...ESPLORA_LAB_LIMITS, ...settings }, "the lab's --flags", profile === 'esplora-rest' ? 'rest' : 'electrum'),
  settingsAre: '--flag',
  // Fixed in its source (src/bin/electrs.rs), not a setting.
  polling: { pollMs: 5000, how: 'every 5 s, fixed in its main loop (a SIGUSR1 wakes it early)' },
  index: ELECTRS_FORK_INDEX,
};
