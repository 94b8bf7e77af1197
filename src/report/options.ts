/**
 * Every report option, validated and defaulted in one step before any file is touched; server
 * names, which need the database, are checked against the model right after it is loaded.
 */
import path from 'node:path';
import { UserError } from '../core/user-error';
import type { ReportModel } from './model';

export interface ReportOptions {
  db: string;
  runIds: number[]; // empty: the latest completed run
  loadRunIds: number[]; // empty: the latest finished load run (when no --run is given either)
  walletRunIds: number[]; // empty: the latest finished wallet run of each kind and workload (when no run is named)
  outDir: string;
  excludeServers: string[];
  baseline?: string;
  logX: boolean;
  logY: boolean;
  facet: boolean;
}

export interface RawReportOptions {
  db?: unknown;
  run?: unknown;
  loadRun?: unknown;
  walletRun?: unknown;
  out?: unknown;
  excludeServer?: unknown;
  baseline?: unknown;
  logX?: unknown;
  logY?: unknown;
  facet?: unknown;
}

const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function oneString(v: unknown, flag: string): string | undefined {
  const all = list(v);
  if (all.length > 1) throw new UserError(`${flag} is given ${all.length} times; give it once`);
  if (all.length === 1 && (typeof all[0] !== 'string' || all[0] === '')) throw new UserError(`${flag} needs a value`);
  return all[0] as string | undefined;
}

export function reportOptions(raw: RawReportOptions): ReportOptions {
  const db = oneString(raw.db, '--db');
  if (!db) throw new UserError('--db FILE is required (a results database written by npm run bench)');
  const ids = (v: unknown, flag: string) =>
    list(v).map((r) => {
      const n = Number(r);
      if (!Number.isInteger(n) || n <= 0) throw new UserError(`${flag}: not a run id: ${String(r)}`);
      return n;
    });
  const runIds = ids(raw.run, '--run');
  const loadRunIds = ids(raw.loadRun, '--load-run');
  const walletRunIds = ids(raw.walletRun, '--wallet-run');
  const out = oneString(raw.out, '--out') ?? path.join('results', `report-${path.basename(db).replace(/\.(sqlite3?|db)$/, '')}`);
  const excludeServers = list(raw.excludeServer).map(String);
  return {
    db,
    runIds: [...new Set(runIds)],
    loadRunIds: [...new Set(loadRunIds)],
    walletRunIds: [...new Set(walletRunIds)],
    outDir: out,
    excludeServers,
    baseline: oneString(raw.baseline, '--baseline'),
    logX: raw.logX === true,
    logY: raw.logY === true,
    facet: raw.facet === true,
  };
}

/** --baseline and --exclude-server must name servers of the selected runs. */
export function checkServerNames(opts: ReportOptions, model: ReportModel | null): void {
  if (model === null) {
    // They shape the bench charts and tables only; silently ignoring them would hide a typo'd intent.
    const given = [...(opts.excludeServers.length ? ['--exclude-server'] : []), ...(opts.baseline !== undefined ? ['--baseline'] : [])];
    if (given.length) throw new UserError(`${given.join(' and ')}: apply to bench runs, and this report has none (${opts.db}); name one with --run ID`);
    return;
  }
  const names = model.servers.map((s) => s.label);
  const known = `servers in the selected runs: ${names.join(', ')}`;
  for (const name of opts.excludeServers) {
    if (!names.includes(name)) throw new UserError(`--exclude-server: no server named ${name} (${known})`);
  }
  if (opts.excludeServers.length >= names.length) throw new UserError(`--exclude-server: that leaves no server to chart (${known})`);
  if (opts.baseline !== undefined && !names.includes(opts.baseline)) throw new UserError(`--baseline: no server named ${opts.baseline} (${known})`);
}
