/**
 * `npm run index-bench -- --server electrumx,electrs[,esplora,fulcrum,mempool-electrs] [--repeat 3] [--param NAME=v1,v2]`
 * On the running lab: each server rebuilds its index from an empty data directory, timed until it is
 * at the node's tip and lists the whole history of the dataset's largest address, with CPU, peak RSS, disk I/O, final size and the phases its log shows; medians of
 * the repeats, everything stored in --db. The lab's servers are left at the tip with their lab
 * settings afterwards.
 */
import yargs from 'yargs';
import { runCli } from './run-cli';
import { UserError } from '../core/user-error';
import { textTable } from '../core/text-table';
import type { IndexedServer } from '../indexing/index-bench';
import type { IndexSummary } from '../core/index-builds';
import { refusingMistakes } from './validate';
import { parseParamSweep } from './param-sweep';
import { indexTable, type IndexRunReport } from '../report/resources';
import { indexBenchSession, type IndexBenchRun } from '../runs/kinds/index-bench';
import { isLabServerName, LAB_SERVER_NAMES, LAB_SERVERS, labServer, type LabServerName } from '../lab/servers/registry';

/** How a setting reaches each lab server: "env var for ElectrumX, --flag for electrs/Esplora/mempool's electrs, config key for Fulcrum". */
function settingsText(): string {
  const kinds = [...new Set(LAB_SERVERS.map((s) => s.settingsAre))];
  return kinds.map((k) => `${k} for ${LAB_SERVERS.filter((s) => s.settingsAre === k).map((s) => s.title).join('/')}`).join(', ');
}

export async function main(argv: string[]): Promise<number> {
  const y = yargs(argv);
  const a = await refusingMistakes(
    y
      .scriptName('npm run index-bench --')
      .option('server', { type: 'string', default: 'electrumx,electrs', describe: `lab servers, comma-separated: ${LAB_SERVER_NAMES.join(', ')}` })
      .option('repeat', { type: 'number', default: 3, describe: 'builds per server (and per --param value); the table shows medians' })
      .option('param', { type: 'string', describe: `a server setting swept over values: NAME=v1,v2,v3 (${settingsText()})` })
      .option('sample-every', { type: 'number', default: 0.2, describe: 'seconds between resource samples' })
      .option('db', { type: 'string', default: 'results/index.sqlite', describe: 'results database (SQLite)' })
      .option('json', { type: 'boolean', default: false, describe: 'print the medians as JSON' }),
    argv,
  )
    .parseAsync();
  const given = a.server.split(',').map((s) => s.trim()).filter(Boolean);
  const names = given.filter(isLabServerName);
  const unknown = given.filter((n) => !isLabServerName(n));
  if (names.length === 0 || unknown.length) throw new UserError(`--server: unknown lab server ${unknown.join(', ') || '(none)'}; known: ${LAB_SERVER_NAMES.join(', ')}`);
  if (!Number.isInteger(a.repeat) || a.repeat < 1 || a.repeat > 100) throw new UserError(`--repeat must be an integer in 1..100, got ${a.repeat}`);
  if (!(a['sample-every'] >= 0.05 && a['sample-every'] <= 60)) throw new UserError(`--sample-every must be between 0.05 and 60 seconds, got ${a['sample-every']}`);
  const sweep = a.param === undefined ? undefined : parseParamSweep(a.param);
  const { outcome, code } = await indexBenchSession(a.db, () => labBuilds(a, names, sweep));
  const d = outcome.detail;
  if (outcome.status === 'completed') process.stdout.write(a.json ? JSON.stringify(outcome.json, null, 2) + '\n' : printable(d.summaries, outcome.runId!, a.db, d.tipHeight, d.sweep));
  return code;
}

/** The lab's servers ready to be rebuilt: the lab is up and runs them; how each is restarted and observed. */
async function labBuilds(a: { repeat: number; 'sample-every': number }, names: LabServerName[], sweep: IndexBenchRun['sweep']): Promise<IndexBenchRun> {
  const { labConfig, labPaths } = await import('../lab/config');
  const { logFile, pidFile } = await import('../lab/processes');
  const { labRestartServer, labStatus } = await import('../lab/lab');
  const status = await labStatus();
  if (!status.up) throw new UserError('index-bench runs on the lab: start it with: npm run lab -- up');
  const missing = names.filter((n) => !status.electrum[n]?.running);
  if (missing.length) throw new UserError(`--server: ${missing.join(', ')} not running in the lab (started with --without?)`);

  const cfg = labConfig();
  const paths = labPaths(cfg);
  // The build is done when the largest address's whole history is listed: it spans the chain.
  const { readDataset } = await import('../dataset/line');
  const largest = readDataset(status.datasetPath).lines.reduce((a, b) => (b.txCount > a.txCount ? b : a));
  const indexed = { scripthash: largest.scripthash, confirmed: largest.txCount };
  const servers: IndexedServer[] = names.map(labServer).map((s) => ({
    name: s.name,
    pidFile: pidFile(paths, s.name),
    datadir: s.datadir(cfg.stateDir),
    logFile: logFile(paths, s.name),
    phases: s.index.phases,
    ...(s.index.observe ? { observe: s.index.observe } : {}),
  }));

  return {
    servers,
    repeat: a.repeat,
    sweep,
    sampleEveryMs: Math.round(a['sample-every'] * 1000),
    chain: { tipHeight: status.node.tip, seed: status.seed },
    restart: (server, o) => labRestartServer(server as LabServerName, { settings: o.settings, onStarted: o.onStarted, pollMs: 50, tipOnly: true, indexed }),
    restore: (server) => labRestartServer(server as LabServerName),
    log: (line) => process.stderr.write(`[index-bench] ${line}\n`),
  };
}

function printable(summaries: IndexSummary[], runId: number, db: string, tip: number | null, sweep: IndexRunReport['sweep']): string {
  const t = indexTable({ runId, tipHeight: tip, sweep, summaries });
  const phaseless = t.head.slice(0, -1);
  const phases = summaries.map(
    (s) =>
      `  ${s.server}${Object.keys(s.settings).length ? ` ${Object.entries(s.settings).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}: ` +
      s.phases.map((p) => `${p.name} ${(p.ms / 1000).toFixed(2)} s (${Math.round(p.share * 100)} %)`).join(' → '),
  );
  return [
    `index-bench run ${runId} (${db}): each server from an empty data directory to the node's tip ${tip}; medians of the builds`,
    textTable(phaseless, t.rows.map((r) => r.slice(0, -1))),
    '',
    "phases (from each server's own log lines, medians):",
    ...phases,
    '',
  ].join('\n');
}

if (require.main === module) runCli(main);
