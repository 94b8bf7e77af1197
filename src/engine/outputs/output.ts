/**
 * Where a run's intervals go besides the results database, as k6's `--out NAME=ARG` outputs:
 * one file per output under this directory, registered by name (registry.ts). An output is told
 * each closed interval as it happens and the summary at the end; it only listens, and a slow or
 * failing output never changes what the run measures or stores.
 */
import type { AnyIntervalRecord } from '../../core/load-types';

export interface RunContext {
  /** The run's number in its database. */
  run: number;
  /** "I/N" when the run is one shard of a larger test. */
  shard: string | null;
}

/** A threshold as it stands so far (for a windowed one, its worst window yet). */
export interface ThresholdState {
  threshold: string;
  server: string;
  observed: number | null;
  unit: string;
  pass: boolean;
}

/** A planned run's way through its plan (bench): units done of all it holds. */
export interface PlanProgress {
  done: number;
  total: number;
  /** The pass under way (0-based) of `passes`, and whether it is a warm-up pass (stored, not in the statistics). */
  pass: number;
  passes: number;
  warmup: boolean;
}

/** Block notifications judged so far for one kind (a held connection's headers, a paid script's status). */
export interface NotificationTally {
  expected: number;
  ok: number;
  missing: number;
  duplicate: number;
  /** Of the ok ones, from the moment the block was asked for (ms). */
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/** Wallet load, one server: the wallets it holds now and the notifications judged so far. */
export interface WalletsLive {
  held: number;
  /** --hold: how many it is to hold. */
  wanted: number;
  blocks: number;
  headers: NotificationTally;
  scripthash: NotificationTally;
}

/** What the command knows beside the interval itself when it closes (of the interval's server). */
export interface LiveState {
  /** Every threshold judged on the intervals so far; absent when the run has none judged here. */
  thresholds?: ThresholdState[];
  progress?: PlanProgress;
  wallets?: WalletsLive;
}

export interface Output {
  /** Takes what it needs from the world (a port) before any work; a failure is the user's (exit 2). */
  open?(): Promise<void>;
  /** Once the run is recorded, before its first interval. */
  start(context: RunContext): void;
  interval(record: AnyIntervalRecord, live?: LiveState): void;
  /** The run's end, with what its summary says (whatever the command prints as JSON); the command waits for it to settle. */
  end(summary: unknown): void | Promise<void>;
  /** Lets go of what open() took, whether or not the run got to end(); idempotent. */
  close?(): Promise<void>;
}

export interface OutputKind {
  name: string;
  /** What ARG means, for --help and messages. */
  argument: string;
  /** Every problem with ARG, empty when it is fine; checked before any work. */
  validate(argument: string): string[];
  /** Claims what it will write (so a bad path fails before any work) and returns the output. */
  create(argument: string): Output;
}
