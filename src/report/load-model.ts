/**
 * The load report model, built once per load run from the results database (load-read.ts): per
 * server one row of scalars per interval and one whole-run latency histogram. Per-interval
 * histograms are reduced to their percentiles as they are read and never kept, so an hour-long run
 * costs 3,600 small rows per server, not 3,600 histograms.
 */
import type { Answering } from '../core/answering';
import type { Histogram } from 'hdr-histogram-js';
import type { LoadRunRow, LoadServerRow } from '../store/load-results';
import type { StoppedAnswering } from '../core/stopped-answering';
import type { StoredLoadModel } from '../core/load-types';
import type { Outage } from '../core/outages';
import type { TurnLatency } from '../core/seconds-latency';
import type { Comparison } from '../verdicts/comparison';

export interface LoadIntervalPoint {
  index: number;
  /** Seconds from the server's first interval's start (an interleaved run's: the run's first) to this interval's end. */
  t: number;
  /** An interleaved run's round this second belongs to (its turn); null otherwise. */
  round: number | null;
  targetRate: number | null;
  vus: number | null;
  /** Replies per second: every non-dropped outcome, errors included (a timeout is an answer of sorts). */
  achievedRate: number;
  sent: number;
  dropped: number;
  ok: number;
  errors: Record<string, number>;
  errorCount: number;
  /** Latency of the ok replies from their intended send, all methods merged; null when none. */
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface SpectrumPoint {
  /** 1 / (1 − q): HdrHistogram's percentile-plot axis, where each decade is one more nine. */
  x: number;
  percentile: number; // 0–100
  ms: number;
}

export interface LoadTotals {
  durationS: number;
  sent: number;
  ok: number;
  dropped: number;
  errors: Record<string, number>;
  errorCount: number;
  achievedRate: number;
  targetMin: number | null;
  targetMax: number | null;
  vusMax: number | null;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface GeneratorVerdict {
  bound: boolean;
  reasons: string[];
}

export interface ThresholdVerdict {
  text: string;
  server: string | null; // null: the threshold is judged over the whole run
  pass: boolean;
}

export interface LoadServerReport {
  label: string;
  record: LoadServerRow;
  intervals: LoadIntervalPoint[];
  /** Every ok reply of the run, µs from the intended send (the sum of the intervals' histograms). */
  latency: Histogram;
  totals: LoadTotals;
  spectrum: SpectrumPoint[];
  /** Null when the run stored no per-server generator check (then only the run's flag is known). */
  generator: GeneratorVerdict | null;
  /** Stored with the run (schema 8): the server went silent before the run ended; null otherwise or before. */
  stoppedAnswering: StoppedAnswering | null;
  /** Whether it answered the requests it was given, from the stored outcomes; null for a run stored without them. */
  answering: Answering | null;
  /** Stored with the run: when the server was gone; empty when it never was (or before they were stored). */
  outages: Outage[];
  /** An interleaved run's turns, in order; empty for a run whose servers went one after another. */
  turns: TurnLatency[];
}

export interface FindMaxStep {
  step: number;
  targetRate: number;
  achievedRate: number;
  p50Ms: number | null;
  p99Ms: number | null;
  errorRate: number;
  passed: boolean;
  phase?: string; // warmup | ramp | bisect
  sloValueMs?: number | null; // the latency at the SLO's own percentile
}

export interface FindMaxResult {
  server: string;
  slo: { percentile: number; thresholdMs: number; text?: string };
  steps: FindMaxStep[];
  maxSustainableRate: number | null;
  /** What ended the search ('server', 'server-down', 'generator', 'max-rate', 'interrupted'); absent in searches stored before it was read. */
  limitedBy?: string;
  statement?: string; // the search's own one-line conclusion
}

export interface LoadRunReport {
  run: LoadRunRow;
  /** How the run came to be reported: named with --load-run, or picked as the latest finished one. */
  chosen: 'named' | 'latest';
  model: StoredLoadModel | null; // null when model_json is unreadable
  servers: LoadServerReport[]; // in the run's order
  /** The whole report's colour order (src/report/colours.ts); absent: `servers`' own order. */
  colourOrder?: string[];
  findMax: FindMaxResult[] | null;
  thresholds: ThresholdVerdict[] | null;
  /** `load --interleave`: the servers took turns of this long (ms); null when they went one after another. */
  turnMs: number | null;
  /** `load --baseline`: the server the others were judged against, turn by turn; null when none. */
  baseline: string | null;
  /** An interleaved A/B run's verdicts, every other server against the baseline turn by turn (src/verdicts/load.ts). */
  ab?: Comparison;
}
