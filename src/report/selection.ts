/**
 * Which runs a report covers. Naming runs restricts the report to what was named (--run: bench
 * runs, --load-run: load runs); naming nothing reports the latest completed bench run and the
 * latest finished load run, whichever exist. A database without load runs takes exactly the path
 * it took before load runs existed, errors included.
 */
import { ResultsStore } from '../store/results';
import { UserError } from '../user-error';
import type { LoadRunRow } from '../store/load-results';
import { FINISHED_LOAD_STATUSES, listLoadRuns } from './load-read';
import { readLatestIndexRun } from './resources';
import type { LoadRunReport } from './load-model';

export interface RunSelection {
  bench: boolean; // the bench part is then selected by src/report/load.ts from --run
  load: Array<{ run: LoadRunRow; chosen: LoadRunReport['chosen'] }>;
}

export function selectRuns(store: ResultsStore, dbPath: string, runIds: readonly number[], loadRunIds: readonly number[]): RunSelection {
  const loadRuns = listLoadRuns(store);
  if (loadRunIds.length > 0) {
    const load = loadRunIds.map((id) => {
      const run = loadRuns.find((r) => r.id === id);
      if (!run) throw new UserError(`--load-run: no load run ${id} in ${dbPath} (load runs: ${loadRuns.map((r) => r.id).join(', ') || 'none'})`);
      return { run, chosen: 'named' as const };
    });
    return { bench: runIds.length > 0, load };
  }
  // A database of index-bench runs alone (npm run index-bench's own) reports just those.
  if (runIds.length === 0 && loadRuns.length === 0 && store.listRuns().length === 0 && readLatestIndexRun(store.db)) return { bench: false, load: [] };
  if (runIds.length > 0 || loadRuns.length === 0) return { bench: true, load: [] };
  const finished = loadRuns.filter((r) => FINISHED_LOAD_STATUSES.includes(r.status));
  const latest = finished.length > 0 ? [{ run: finished[finished.length - 1], chosen: 'latest' as const }] : [];
  const bench = store.listRuns().some((r) => r.status === 'completed');
  if (!bench && latest.length === 0) {
    throw new UserError(`--db: ${dbPath} has no completed bench run and no finished load run; name one with --run ID or --load-run ID`);
  }
  return { bench, load: latest };
}
