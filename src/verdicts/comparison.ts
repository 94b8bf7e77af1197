/**
 * What a comparison is, whichever kind of run it judges: rows of B against A, each with its verdict
 * (src/verdicts/verdict.ts), and the rows `--fail-on-regression` fails on. The report renders a
 * comparison (src/report/compare.ts); the commands store its rows and exit 99 on its regressions.
 */
import { DEFAULT_NOISE_FLOOR_PCT, verdictText, type Verdict, type VerdictOptions } from './verdict';

/** One server and method of two bench runs (or two servers of one), paired by address. */
export interface CompareRow {
  server: string;
  method: string;
  matched: number;
  a: number | null;
  b: number | null;
  /** The change of the median of medians (the figure before verdicts; the verdict's is paired). */
  changePct: number | null;
  verdict: Verdict;
  /** Measured in both, but no address answered on this side (every call failed): no pairs at all. */
  unanswered?: 'a' | 'b' | 'both';
}

/** One server's latency percentile across two load runs: each run's per-second values, bootstrapped. */
export interface LoadCompareRow {
  server: string;
  percentile: 'p50' | 'p99';
  /** Seconds with an answer, A and B. */
  intervals: [number, number];
  /** The whole run's percentile, ms. */
  a: number | null;
  b: number | null;
  verdict: Verdict;
}

/**
 * One server against the baseline in one interleaved load run (`load --interleave`), per latency
 * percentile: each round's turn of B against A's, paired (a sign test over the rounds).
 */
export interface LoadPairedRow {
  /** "B vs A". */
  server: string;
  /** B, the server judged. */
  judged: string;
  percentile: 'p50' | 'p99';
  /** Rounds in which both had an answered turn. */
  pairs: number;
  /** The whole run's percentile, ms (each server's turns added up). */
  a: number | null;
  b: number | null;
  verdict: Verdict;
}

/** One wallet on one server across two wallet bench runs: each run's counted syncs, bootstrapped. */
export interface WalletCompareRow {
  server: string;
  /** Null: the server's row over all its wallets. */
  wallet: string | null;
  txs: number | null;
  /** Counted ok syncs, A and B. */
  syncs: [number, number];
  /** Median time to synced, ms. */
  a: number | null;
  b: number | null;
  verdict: Verdict;
}

export interface Comparison {
  rows: CompareRow[];
  /** Load runs' rows, when both databases hold a finished load run. */
  load?: LoadCompareRow[];
  /** Servers of one interleaved load run against one, turn by turn, and how long a turn was. */
  loadPaired?: { turnMs: number; rows: LoadPairedRow[] };
  /** Wallet syncs' rows, when both databases hold a completed wallet bench run of one workload. */
  wallet?: { workload: string; rows: WalletCompareRow[] };
  /** Why wallet runs both databases hold were not compared (their workloads differ). */
  walletNote?: string;
  noiseFloorPct: number;
  onlyA: string[]; // "server method" pairs measured in A only
  onlyB: string[];
}

/** An A/B run's verdicts: every other server against the baseline, and the lines of those beyond `--fail-on-regression` (none without it). */
export interface AbVerdicts {
  baseline: string;
  comparison: Comparison;
  regressed: string[];
}

/** A comparison with no rows yet, at the options' noise floor. */
export function emptyComparison(options: VerdictOptions): Comparison {
  return { rows: [], noiseFloorPct: options.noiseFloorPct ?? DEFAULT_NOISE_FLOOR_PCT, onlyA: [], onlyB: [] };
}

/** The rows whose verdict is `slower` by more than `pct` percent: what --fail-on-regression fails on. */
export function regressions(c: Comparison, pct: number): Array<{ what: string; verdict: Verdict }> {
  const slower = [
    ...c.rows.map((r) => ({ what: `${r.server} ${r.method}`, verdict: r.verdict })),
    ...(c.load ?? []).map((r) => ({ what: `${r.server} load ${r.percentile}`, verdict: r.verdict })),
    ...(c.loadPaired?.rows ?? []).map((r) => ({ what: `${r.server} load ${r.percentile}`, verdict: r.verdict })),
    // A server's row over all its wallets, not each wallet's: those carry the drift between runs
    // that only the server's row accounts for (docs/findings/2026-11-24-verdicts.md).
    ...(c.wallet?.rows ?? []).filter((r) => r.wallet === null).map((r) => ({ what: `${r.server} ${c.wallet!.workload} sync of every wallet`, verdict: r.verdict })),
  ].filter((r) => r.verdict.verdict === 'slower' && r.verdict.changePct !== null && r.verdict.changePct > pct);
  // B stopped answering what A answered: the worst regression there is.
  const silent = c.rows.filter((r) => r.unanswered === 'b').map((r) => ({ what: `${r.server} ${r.method}`, verdict: r.verdict }));
  return [...slower, ...silent];
}

/** The regressions beyond `pct`, one line each ("b vs a history slower +12.3 % […]"); none without a `pct`. */
export function regressionLines(c: Comparison, pct: number | undefined): string[] {
  return pct === undefined ? [] : regressions(c, pct).map((r) => `${r.what} ${verdictText(r.verdict)}`);
}
