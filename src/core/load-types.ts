/**
 * The load engine's shared vocabulary: a stored load model, what one interval of a run holds, and
 * how it is stored. Everything under src/load/ and the load report reads and writes these shapes.
 *
 * Units: latencies in histograms are integer microseconds (HdrHistogram, 3 significant digits);
 * wall-clock times are epoch milliseconds; an interval is one second of the run's schedule clock.
 */
import type { MethodName } from './methods';
import type { ErrorCategory } from './outcomes';

/** A call's fate. `dropped`: never sent, because every connection's pipeline was full (k6's dropped_iterations). */
export type LoadOutcome = 'ok' | ErrorCategory | 'dropped';

/** One stage of a ramp: over `durationMs`, go linearly from the previous target to `target`. */
export interface Stage {
  durationMs: number;
  target: number;
}

/**
 * How a run's load was paced, as stored with it: the name of its executor (`kind`) and that
 * executor's config. Only src/engine/executors/ knows each kind's fields (its registry's
 * `LoadModel` is the precise union of the registered executors' configs); the store keeps the
 * model as JSON and the report prints the words the executor stored beside it (`model_text`).
 */
export type StoredLoadModel = { kind: string; [field: string]: unknown };

/** The weight of each method in the request mix (e.g. balance 40, history 40, utxos 20). */
export type Mix = Partial<Record<MethodName, number>>;

/**
 * What one server saw of one method with one outcome during one interval. `latency` is measured
 * from the request's intended send time (coordinated-omission-free); `service` from its actual
 * write. Dropped requests have count and no latencies.
 *
 * `M` names what a unit is: a request's method in load, which the store keeps; a run kind whose
 * units are something else (a wallet sync) has its seconds only for the outputs (src/engine/outputs/).
 */
export interface IntervalCell<M extends string = MethodName> {
  method: M;
  outcome: LoadOutcome;
  count: number;
  bytes: number;
  /** Compressed base64 HdrHistogram (µs), as HdrHistogram's own tools encode it; null when count is 0 or dropped. */
  latency: string | null;
  service: string | null;
}

/** One second of one server's load: the generator's side (schedule, lag) and every cell. */
export interface IntervalRecord<M extends string = MethodName> {
  server: string;
  index: number; // 0-based second of the run's schedule clock
  startMs: number; // epoch ms of the interval's start on the schedule clock
  lengthMs: number;
  targetRate: number | null; // intended requests/s (open model); null in the closed model
  vus: number | null; // virtual clients active (closed model)
  sent: number; // requests written
  dropped: number;
  inFlight: number; // at the interval's end
  /** Scheduling lag (actual − intended send) in µs, compressed base64 HdrHistogram; null if nothing was sent. */
  lag: string | null;
  /** The generator's event-loop delay p99 over the interval, µs (perf_hooks). */
  loopDelayP99Us: number;
  cells: IntervalCell<M>[];
}

/** An interval as the outputs take it, of whatever kind of unit. */
export type AnyIntervalRecord = IntervalRecord<string>;
