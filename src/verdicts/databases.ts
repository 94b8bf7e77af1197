/**
 * What `report compare` judges: two databases (e.g. two versions of one server), the latest run of
 * each kind both hold; or two servers of one database's latest run (`--a`, `--b`), whose calls or
 * turns were interleaved.
 */
import { FINISHED_LOAD_STATUSES } from '../core/run-status';
import { UserError } from '../core/user-error';
import { ResultsReader } from '../store/read';
import { ResultsStore } from '../store/results';
import type { VerdictOptions } from './verdict';
import { emptyComparison, type Comparison } from './comparison';
import { compareBenchRuns, compareBenchServers, readBenchRun, type BenchRunLatency } from './bench';
import { compareLoadRuns, pairedLoadRows, readLoadLatency, type LoadRunLatency } from './load';
import { compareWalletRuns, readWalletSyncs, type WalletSyncs } from './wallet';

/** What a database holds for `report compare`: its latest run of each kind, read as the verdicts read it. */
export interface LatestRuns {
  bench: BenchRunLatency | null;
  load: (LoadRunLatency & { number: number }) | null;
  wallet: { workload: string; syncs: WalletSyncs[] } | null;
}

/** A database's latest completed bench run, latest finished load run and latest completed wallet bench run, read in one open (`read` leaves some out). */
export function latestRunsOf(db: string, read: { [K in keyof LatestRuns]?: false } = {}): LatestRuns {
  const store = ResultsStore.open(db, { readonly: true });
  try {
    const reader = new ResultsReader(store);
    const latestBench = read.bench === false ? undefined : reader.benchRuns().filter((r) => r.status === 'completed').at(-1);
    const latestLoad = read.load === false ? undefined : reader.loadRuns().filter((r) => FINISHED_LOAD_STATUSES.includes(r.status)).at(-1);
    const latestWallet = read.wallet === false ? undefined : reader.walletRuns().filter((r) => r.kind === 'bench' && r.status === 'completed').at(-1);
    return {
      bench: latestBench ? readBenchRun(reader, latestBench) : null,
      load: latestLoad ? { ...readLoadLatency(reader.load, latestLoad), number: latestLoad.number } : null,
      wallet: latestWallet ? { workload: latestWallet.workload, syncs: readWalletSyncs(reader, latestWallet) } : null,
    };
  } finally {
    store.close();
  }
}

/**
 * Two databases: their latest completed bench runs compared by address, their latest finished
 * load runs by each second's percentiles, and their latest completed wallet bench runs by wallet,
 * whichever both hold.
 */
export function compareDatabases(dbA: string, dbB: string, options: VerdictOptions = {}): Comparison {
  const [a, b] = [latestRunsOf(dbA), latestRunsOf(dbB)];
  if (!(a.bench && b.bench) && !(a.load && b.load) && !(a.wallet && b.wallet)) {
    const has = (c: LatestRuns) =>
      [c.bench && 'a completed bench run', c.load && 'a finished load run', c.wallet && 'a completed wallet bench run'].filter(Boolean).join(' and ') ||
      'no completed bench run, finished load run or completed wallet bench run';
    throw new UserError(`compare: nothing of one kind in both: ${dbA} has ${has(a)}; ${dbB} has ${has(b)}`);
  }
  const comparison = a.bench && b.bench ? compareBenchRuns(a.bench, b.bench, options) : emptyComparison(options);
  if (a.load && b.load) comparison.load = compareLoadRuns(a.load, b.load, options);
  if (a.wallet && b.wallet) {
    const [wa, wb] = [a.wallet.workload, b.wallet.workload];
    if (wa === wb) comparison.wallet = { workload: wa, rows: compareWalletRuns(a.wallet.syncs, b.wallet.syncs, options) };
    else comparison.walletNote = `The latest wallet bench runs sync different workloads (A: ${wa}, B: ${wb}): their times are not compared.`;
  }
  return comparison;
}

/**
 * Two servers of one run, B against A: an interleaved A/B comparison. In a bench run the bench
 * calls them in turn for every address; in an interleaved load run (`load --interleave`) they took
 * turns: either way the machine's drift over time hits both alike. The latest completed bench run
 * is compared if it measured both, and the latest finished load run if it was interleaved and
 * loaded both. Rows are named "B vs A". Names neither run has are the user's to fix.
 */
export function compareServers(db: string, a: string, b: string, options: VerdictOptions = {}): Comparison {
  const { bench, load: latestLoad } = latestRunsOf(db, { wallet: false });
  const load = latestLoad && latestLoad.turnMs !== null ? latestLoad : null;
  const has = (names: string[]) => [a, b].every((n) => names.includes(n));
  const loadServers = load?.servers.map((s) => s.label) ?? [];
  const benched = bench !== null && has(bench.servers);
  const loaded = load !== null && has(loadServers);
  if (!benched && !loaded) {
    const missingIn = (names: string[]) => [a, b].filter((n) => !names.includes(n)).join(' or ');
    if (load === null) {
      // No interleaved load run: the bench run's names, or why there is none, as before.
      if (bench === null) throw new UserError(`--db: ${db} has no completed run; name one with --run ID`);
      throw new UserError(`--a/--b: no server named ${missingIn(bench.servers)} in the latest completed run of ${db} (it has ${bench.servers.join(', ')})`);
    }
    const benchPart = bench ? `its latest completed bench run has ${bench.servers.join(', ')}; ` : '';
    throw new UserError(`--a/--b: no server named ${missingIn(loadServers)} in ${db}: ${benchPart}its latest load run, interleaved, load run ${load.number}, has ${loadServers.join(', ')}`);
  }
  const comparison = benched ? compareBenchServers(bench, a, b, options) : emptyComparison(options);
  if (loaded) comparison.loadPaired = { turnMs: load.turnMs!, rows: pairedLoadRows(load, a, b, options) };
  return comparison;
}
