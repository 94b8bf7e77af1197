/**
 * Which runs a report covers. Naming runs restricts the report to what was named (--run: bench
 * runs, --load-run: load runs, --wallet-run: wallet runs); naming nothing reports the latest
 * completed bench run, the latest finished load run and the latest finished wallet run of each kind
 * and workload, whichever exist. A database without load or wallet runs takes exactly the path it
 * took before they existed, errors included.
 */
import type { ResultsReader } from '../store/read';
import { UserError } from '../core/user-error';
import type { LoadRunRow } from '../store/load-results';
import { FINISHED_LOAD_STATUSES } from '../core/run-status';
import type { LoadRunReport } from './load-model';
import type { WalletRunRow } from './wallet-model';
import { FINISHED_WALLET_STATUSES } from './wallet-read';

export interface RunSelection {
  bench: boolean; // the bench part is then selected by src/report/load.ts from --run
  load: Array<{ run: LoadRunRow; chosen: LoadRunReport['chosen'] }>;
  wallet: WalletRunRow[];
}

/** The latest finished run of each kind (bench, load) and workload, in run order. */
function latestWalletRuns(runs: readonly WalletRunRow[]): WalletRunRow[] {
  const latest = new Map<string, WalletRunRow>();
  for (const r of runs) if (FINISHED_WALLET_STATUSES.includes(r.status)) latest.set(`${r.kind}\u0000${r.workload}`, r);
  return [...latest.values()].sort((a, b) => a.id - b.id);
}

/** Named runs are found by their number (as printed), or by their id. */
const named = <R extends { id: number }>(runs: readonly R[], id: number | undefined): R | undefined => runs.find((r) => r.id === id);
const numbers = (runs: ReadonlyArray<{ number: number }>) => runs.map((r) => r.number).join(', ') || 'none';

function namedWalletRuns(reader: ResultsReader, ids: readonly number[], runs: readonly WalletRunRow[], dbPath: string): WalletRunRow[] {
  return ids.map((id) => {
    const run = named(runs, reader.resolve('wallet', id));
    if (!run) throw new UserError(`--wallet-run: no wallet run ${id} in ${dbPath} (wallet runs: ${numbers(runs)})`);
    return run;
  });
}

export function selectRuns(reader: ResultsReader, dbPath: string, runIds: readonly number[], loadRunIds: readonly number[], walletRunIds: readonly number[] = []): RunSelection {
  const loadRuns = reader.loadRuns();
  const walletRuns = reader.walletRuns();
  const anyNamed = runIds.length > 0 || loadRunIds.length > 0 || walletRunIds.length > 0;
  const wallet = anyNamed ? namedWalletRuns(reader, walletRunIds, walletRuns, dbPath) : latestWalletRuns(walletRuns);
  if (loadRunIds.length > 0) {
    const load = loadRunIds.map((id) => {
      const run = named(loadRuns, reader.resolve('load', id));
      if (!run) throw new UserError(`--load-run: no load run ${id} in ${dbPath} (load runs: ${numbers(loadRuns)})`);
      return { run, chosen: 'named' as const };
    });
    return { bench: runIds.length > 0, load, wallet };
  }
  if (walletRunIds.length > 0) return { bench: runIds.length > 0, load: [], wallet };
  // A database of index-bench or limits runs alone (those commands' own) reports just those (and wallet runs beside them).
  if (runIds.length === 0 && loadRuns.length === 0 && !reader.hasRuns('bench') && (reader.index.latestCompleted() || reader.hasRuns('limits'))) return { bench: false, load: [], wallet };
  if (runIds.length > 0 || (loadRuns.length === 0 && wallet.length === 0)) return { bench: true, load: [], wallet };
  const finished = loadRuns.filter((r) => FINISHED_LOAD_STATUSES.includes(r.status));
  const latest = finished.length > 0 ? [{ run: finished[finished.length - 1], chosen: 'latest' as const }] : [];
  const bench = reader.benchRuns().some((r) => r.status === 'completed');
  if (!bench && latest.length === 0 && wallet.length === 0) {
    throw new UserError(`--db: ${dbPath} has no completed bench run and no finished load run; name one with --run ID or --load-run ID`);
  }
  return { bench, load: latest, wallet };
}
