/**
 * "Did it regress?" for load runs, per server and latency percentile (p50, p99), read from the
 * run's stored seconds (src/core/seconds-latency.ts, as the report reads them): two runs' seconds
 * bootstrapped apart (they are not the same moments), or in one interleaved run (`load
 * --interleave`) each round's turn of B against A's of the same round (a sign test over the rounds).
 */
import { interleavingOf } from '../core/ab-setup';
import { histogramLine } from '../core/percentile-line';
import { SecondsLatency } from '../core/seconds-latency';
import { LoadStore, type LoadRunRow } from '../store/load-results';
import type { ResultsStore } from '../store/results';
import { pairsVerdict, unpairedVerdict, type VerdictOptions } from './verdict';
import { emptyComparison, regressionLines, type AbVerdicts, type Comparison, type LoadCompareRow, type LoadPairedRow } from './comparison';

type Percentiles = { p50Ms: number | null; p99Ms: number | null };

/** One server of a load run as its verdicts read it: each second's percentiles, each turn's (interleaved) and the whole run's, ms. */
export interface LoadServerLatency {
  label: string;
  intervals: Percentiles[];
  turns: Array<Percentiles & { round: number }>;
  totals: Percentiles;
}

/** A load run as its verdicts read it. */
export interface LoadRunLatency {
  /** `load --interleave`: how long a turn was (ms); null when the servers went one after another. */
  turnMs: number | null;
  /** `load --baseline`: the server the others are judged against, turn by turn; null when none. */
  baseline: string | null;
  servers: LoadServerLatency[];
}

/** What one load run stored that its verdicts stand on: every server's seconds, read once. */
export function readLoadLatency(loads: LoadStore, run: LoadRunRow): LoadRunLatency {
  const { turnMs, baseline } = interleavingOf(run.config_json);
  const servers = loads.servers(run.id).map((server): LoadServerLatency => {
    const latency = new SecondsLatency(`load run ${run.number}, server ${server.name}`);
    const intervals: Percentiles[] = [];
    for (const second of loads.intervals(run.id, server.id)) {
      const line = latency.add(second, turnMs === null ? null : second.step);
      intervals.push({ p50Ms: line.p50, p99Ms: line.p99 });
    }
    const whole = histogramLine(latency.whole, 1000);
    return { label: server.name, intervals, turns: latency.endTurns(), totals: { p50Ms: whole.p50, p99Ms: whole.p99 } };
  });
  return { turnMs, baseline, servers };
}

const PERCENTILES = ['p50', 'p99'] as const;

/**
 * Per server in both runs and per percentile: B's per-second values against A's, unpaired (the
 * seconds of two runs are not the same moments), with the whole run's percentile beside them.
 */
export function compareLoadRuns(a: LoadRunLatency, b: LoadRunLatency, options: VerdictOptions = {}): LoadCompareRow[] {
  const rows: LoadCompareRow[] = [];
  for (const sa of a.servers) {
    const sb = b.servers.find((s) => s.label === sa.label);
    if (!sb) continue;
    for (const percentile of PERCENTILES) {
      const key = `${percentile}Ms` as const;
      const values = (s: LoadServerLatency) => s.intervals.flatMap((i) => (i[key] === null ? [] : [i[key]!]));
      const [va, vb] = [values(sa), values(sb)];
      rows.push({
        server: sa.label,
        percentile,
        intervals: [va.length, vb.length],
        a: sa.totals[key],
        b: sb.totals[key],
        verdict: unpairedVerdict(va, vb, { ...options, seed: options.seed ?? `${sa.label} ${percentile}` }),
      });
    }
  }
  return rows;
}

/** Fewest rounds a turn-by-turn verdict stands on: the sign test's interval holds 95 % from 6, and it is used from 10 as the bench's from 10 addresses. */
export const MIN_ROUNDS = 10;

/** B's turns against A's of the same round, per percentile (both names in `run`), rows named "B vs A". */
export function pairedLoadRows(run: LoadRunLatency, a: string, b: string, options: VerdictOptions = {}): LoadPairedRow[] {
  const [sa, sb] = [a, b].map((n) => run.servers.find((s) => s.label === n)!);
  const rounds = sa.turns.map((t) => t.round).filter((r) => sb.turns.some((t) => t.round === r));
  const at = (s: LoadServerLatency, round: number, key: 'p50Ms' | 'p99Ms') => s.turns.find((t) => t.round === round)?.[key] ?? NaN;
  return PERCENTILES.map((percentile) => {
    const key = `${percentile}Ms` as const;
    const verdict = pairsVerdict(
      rounds.map((r) => at(sa, r, key)),
      rounds.map((r) => at(sb, r, key)),
      { minSamples: MIN_ROUNDS, columns: 'rounds with a turn of both answered', ...options },
    );
    return { server: `${b} vs ${a}`, judged: b, percentile, pairs: verdict.n, a: sa.totals[key], b: sb.totals[key], verdict };
  });
}

/**
 * An interleaved load run recorded as an A/B run (`load --baseline A --interleave D`): every other
 * server against A, turn by turn. Undefined for a run without a baseline.
 */
export function loadAbComparison(run: LoadRunLatency, options: VerdictOptions = {}): Comparison | undefined {
  const a = run.baseline;
  if (a === null || run.turnMs === null || !run.servers.some((s) => s.label === a)) return undefined;
  const rows = run.servers.filter((s) => s.label !== a).flatMap((s) => pairedLoadRows(run, a, s.label, options));
  return { ...emptyComparison(options), loadPaired: { turnMs: run.turnMs, rows } };
}

/** An interleaved A/B load run's verdicts, with each judged server's rows as they are stored with it. */
export interface LoadAbVerdicts extends AbVerdicts {
  byServer: Map<string, LoadPairedRow[]>;
}

/** The verdicts of load run `runId` as stored, for the command that just ran it; undefined for a run without a baseline. */
export function loadAbVerdicts(results: ResultsStore, runId: number, failOnPct: number | undefined): LoadAbVerdicts | undefined {
  const loads = new LoadStore(results);
  const run = loads.run(runId);
  if (!run) return undefined;
  const latency = readLoadLatency(loads, run);
  const comparison = loadAbComparison(latency);
  if (!comparison?.loadPaired) return undefined;
  const byServer = new Map<string, LoadPairedRow[]>();
  for (const row of comparison.loadPaired.rows) byServer.set(row.judged, [...(byServer.get(row.judged) ?? []), row]);
  return { baseline: latency.baseline!, comparison, byServer, regressed: regressionLines(comparison, failOnPct) };
}
