/**
 * How work is paced, after k6's executors: one file per executor, registered by name in
 * registry.ts. An executor decides only when the next unit of work starts; what a unit is (a
 * request, a wallet sync: the iteration, src/engine/iteration.ts), where it goes and what is kept
 * of it are the iteration's. A new load shape is a new file here, declaring its config, its
 * checks, its words and the options that choose it, and one line in the registry.
 */
import type { IterationContext, PlanContext } from '../iteration';
import type { Stage, StoredLoadModel } from '../../core/load-types';
import type { Shard } from '../../core/shard';
import type { Choice, ModelOptions } from './options';

/** One server's run of an executor: resolves when its schedule is done or stop() was called. */
export interface Pacer {
  run(): Promise<void>;
  stop(): void;
  /** Virtual users active at `tMs`, for the interval record; null for arrival-rate executors. */
  vusAt(tMs: number): number | null;
  /** Units of the schedule never started because a stop came first: each must still end as an outcome. */
  unsent?(): number;
}

/**
 * A load executor with config `M` (its stored model: `kind` is the name runs store, so the older
 * ones keep the names earlier databases hold) and the options `O` that choose it.
 */
export interface Executor<M extends StoredLoadModel, O extends ModelOptions = Record<never, ModelOptions[string]>> {
  /** The name its config carries as `kind`, stored with each run. */
  readonly kind: M['kind'];
  /** k6's name for it. */
  readonly name: string;
  /** The options of `load` that choose it; none for one chosen otherwise (hold: --workload's --hold). */
  readonly choice?: Choice<M, O>;
  /**
   * Closed executors wait for each answer before their next request: every connection's pipeline
   * is unbounded and each virtual user gets a connection of its own unless told otherwise.
   */
  readonly closed: boolean;
  /**
   * --duration's default: the schedule's length, or for iterations the most the run may take
   * (k6's maxDuration); null when --duration does not apply (the stages set the length).
   */
  readonly duration: { defaultMs: number } | null;
  /**
   * Iterations end the run when the last is done, --duration being only a limit: their rate is
   * over the time they took. The others' schedules last their whole length.
   */
  readonly endsWhenDone?: boolean;
  /** Every problem with `config` at once, each naming its option; empty when it can run. */
  validate(config: M): string[];
  /** The schedule's length in ms, given --duration (or its default). */
  lengthMs(config: M, durationMs: number): number;
  /** Intended requests per second at `tMs` (arrival-rate executors), else null. */
  targetRateAt(config: M, tMs: number): number | null;
  /** The most virtual users it ever runs (0 for arrival-rate executors). */
  maxVus(config: M): number;
  /**
   * Shard `shard`'s part of a larger test. Arrival-rate executors keep the whole schedule and thin
   * it as they run (every N-th arrival); the others take their share of users or iterations.
   */
  shareOf(config: M, shard: Shard): M;
  /** How it paces, in a few words, as the run's summary and report print it (stored with the run). */
  describe(config: M): string;
  /**
   * Why a shard's config is not a share of the same test as `first`'s (a different ramp, think
   * time), naming what differs; undefined when the two are shares of one test.
   */
  mismatch?(first: M, other: M): string | undefined;
  /** The whole test's config from its shards' configs (load merge), the inverse of shareOf. */
  merge(shares: M[]): M;
  create(ctx: IterationContext, config: M, lengthMs: number, shard?: Shard): Pacer;
  /**
   * The config for the `index`-th turn of an interleaved run (interleave.ts: the run's schedule
   * cut into windows of one turn each; index 0 is `config` itself), so that the turns go on
   * through the run's schedule rather than each repeating its first window. Absent: every window
   * of the schedule is alike (a metronome, a number of users).
   */
  window?(config: M, index: number): M;
}

/** A count the user gives (VUs, iterations): a whole number above 0. */
export function countProblem(option: string, v: number): string[] {
  return Number.isInteger(v) && v > 0 ? [] : [`${option} must be an integer > 0, got ${v}`];
}

/** `shares` added up at `pick`: shards' shares of a count or a rate. */
export function addedUp<M>(shares: M[], pick: (m: M) => number): number {
  return Math.round(shares.reduce((a, m) => a + pick(m), 0) * 1e6) / 1e6;
}

/** Each stage's target added up over the shares (the durations are one test's, checked by mismatch). */
export function summedStages(shares: Array<{ stages: Stage[] }>): Stage[] {
  return shares[0].stages.map((s, k) => ({ ...s, target: addedUp(shares, (m) => m.stages[k].target) }));
}

/** Whether every share is the same config: open-model shards all carry the whole schedule. */
export function allSame<M>(shares: M[]): boolean {
  return shares.every((m) => JSON.stringify(m) === JSON.stringify(shares[0]));
}

/** ", think N ms" when users think between iterations. */
export function thinkText(thinkTimeMs: number): string {
  return thinkTimeMs ? `, think ${thinkTimeMs} ms` : '';
}

/** The first difference between two ramps' stage durations, or undefined. */
export function stageDurationsMismatch(a: Stage[], b: Stage[]): string | undefined {
  const durations = (stages: Stage[]) => stages.map((s) => `${s.durationMs / 1000}s`).join(',');
  return durations(a) === durations(b) ? undefined : `stage durations ${durations(b)} instead of ${durations(a)}`;
}

export function thinkTimeMismatch(a: number, b: number): string | undefined {
  return a === b ? undefined : `think time ${b} ms instead of ${a} ms`;
}

export function thinkTimeProblem(thinkTimeMs: number): string[] {
  return thinkTimeMs >= 0 && Number.isFinite(thinkTimeMs) ? [] : [`--think-time must not be negative, got ${thinkTimeMs} ms`];
}

/**
 * An executor of a plan made beforehand (passes of planned units): none of a load executor's
 * duration, rate or shard share applies, so these have an interface, and a registry section, of
 * their own.
 */
export interface PlanExecutor<C extends { kind: string }> {
  readonly name: string;
  /** Every problem with `config` at once, each naming its option and the value given; empty when it can run. */
  validate(config: C): string[];
  /** How it paces a plan over `servers` servers, as stored with the run. */
  describe(config: C, servers: number): string;
  create(ctx: PlanContext, config: C): Pacer;
}

/** A count the user gives that may be zero (warm-up passes): a whole number, 0 or more. */
export function countOrZeroProblem(option: string, v: number): string[] {
  return Number.isInteger(v) && v >= 0 ? [] : [`${option} must be an integer >= 0, got ${v}`];
}
