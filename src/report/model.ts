/**
 * The report model, built once from a results database (load.ts): every per-address median with
 * its address's size, every counted error, the stored summaries, and the runs' metadata. Charts,
 * tables and exporters all read this model; none of them touches the database.
 */
import type { Answering } from '../core/answering';
import type { RunRecord, ServerRecord } from '../store/results';
import type { Comparison } from '../verdicts/comparison';
import type { ColdVerdict } from '../verdicts/cold';
import type { BenchMethodName } from '../core/methods';

export type ReportMethod = BenchMethodName;

export interface MedianPoint {
  server: string;
  method: ReportMethod;
  addressIdx: number;
  address: string | null;
  scripthash: string;
  type: string;
  txCount: number;
  utxoCount: number;
  /** The address's transaction as `tx` answered it, in bytes; null when no server answered it. */
  txBytes: number | null;
  medianMs: number | null; // null when every counted pass of this address failed
  nOk: number;
  nError: number;
}

export interface ErrorPoint {
  server: string;
  method: ReportMethod;
  addressIdx: number;
  scripthash: string;
  txCount: number;
  utxoCount: number;
  txBytes: number | null;
  address: string | null;
  category: string;
  count: number;
}

export interface SummaryRow {
  server: string;
  method: ReportMethod;
  n: number;
  nOk: number;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  errors: Record<string, number>;
}

/** A (server, method)'s cold passes beside its warm ones (`bench --cold`). */
export interface ColdRow {
  server: string;
  method: ReportMethod;
  warmP50Ms: number | null;
  coldP50Ms: number | null;
  n: number;
  nOk: number;
  coldMaxMs: number | null;
  errors: Record<string, number>;
  firstTouches: number;
  firstTouchSumMs: number;
  warmMedianSumMs: number;
  /** Each of the same calls' mean over the warm passes, summed; null for runs stored before schema 14 (beside the warm medians only). */
  warmMeanSumMs: number | null;
}

export interface ReportServer {
  label: string;
  run: RunRecord;
  record: ServerRecord;
  /** Whether it answered the calls it was given: said first when it answered none, or went silent. */
  answering?: Answering;
}

export interface ReportModel {
  dbPath: string;
  runs: RunRecord[];
  servers: ReportServer[]; // in a stable order
  /** The whole report's colour order (src/report/colours.ts); absent: `servers`' own order. */
  colourOrder?: string[];
  points: MedianPoint[];
  errors: ErrorPoint[];
  summaries: SummaryRow[];
  /** A --cold run's cold passes beside the warm ones; absent or empty otherwise. */
  cold?: ColdRow[];
  /** A --cold run's first touches against the same calls warm, a verdict per server; absent or empty otherwise. */
  coldVerdicts?: ColdVerdict[];
  /** The server the run was recorded to be judged against (`bench --baseline`): an A/B run. */
  baseline?: string;
  /** An A/B run's verdicts, every other server against the baseline (src/verdicts/bench.ts). */
  ab?: Comparison;
}
