/**
 * What an executor starts: units of a run's iteration (one request, one wallet sync, one planned
 * bench call). Executors decide only when the next unit starts; the iteration decides what the unit
 * is, where it goes and which outcome it records (every unit exactly one). One file per iteration
 * under iterations/.
 */
import type { RunClock } from './run-clock';

/** One pacer's queue of units: started by add(), made real together by flush(). */
export interface UnitBatch {
  /** Units added and not yet flushed. */
  readonly size: number;
  /** Intended time of the oldest unit not yet flushed (Infinity: none). */
  readonly oldestNs: number;
  /**
   * Starts the iteration's next unit, due at `intendedNs` on the run's clock; `whenDone` once it has
   * ended, told whether it ended well (an executor that fills a number of good units counts them).
   * False when it could not start (no connection could take it): its outcome is already recorded
   * and `whenDone` is not called.
   */
  add(intendedNs: number, whenDone?: (ok: boolean) => void): boolean;
  /** Sends what add() queued (requests share one write per connection per turn). */
  flush(): void;
}

export interface IterationContext {
  readonly clock: RunClock;
  /** A batch of this run's units, one per pacer. */
  batch(): UnitBatch;
  /**
   * An open-model pacer's hook: called when answers were read, so units falling due meanwhile go
   * out between chunks of answers rather than after them. Set and cleared by the pacer.
   */
  onProgress(hook: (() => void) | undefined): void;
  /**
   * Whether no unit is awaiting an answer: then an open-model pacer may block the loop until its
   * next start (nothing can arrive meanwhile to be timed late). Absent: never.
   */
  quiet?(): boolean;
}

/**
 * A pass of a sequential plan as its executor hands it to the iteration. Passes and warm-up are the
 * executor's; which units a pass holds, in what order, and which are already done (a resumed run)
 * are the iteration's.
 */
export interface PlanPart {
  pass: number;
  /** A warm-up pass: its units are run and stored, but left out of the figures. */
  warmup: boolean;
  /** Only server `server`'s units (each server with workers of its own); every server's, interleaved, when absent. */
  server?: number;
}

/** The units of one plan part, in the iteration's order: add() starts the next. */
export interface PlanBatch extends UnitBatch {
  /** Whether a unit of the part is left to start. */
  readonly more: boolean;
}

/**
 * What a plan executor sees of an iteration whose units are planned ahead (a bench's calls, a
 * wallet bench's syncs) rather than drawn on demand: the iteration keeps the plan and its cursors,
 * as the request iteration keeps its picker.
 */
export interface PlanContext {
  readonly clock: RunClock;
  /** Servers the plan spreads over: the parts it can be split into. */
  readonly servers: number;
  /** A cursor over `part`'s units. Workers sharing one share its units: each unit starts once. */
  batch(part: PlanPart): PlanBatch;
}

/**
 * One step of a closed loop (virtual users, a hold's fillers, a plan's workers): starts one unit
 * now and resolves when it has ended, saying how; 'unsent' when no connection could take it (its
 * outcome is recorded already).
 */
export function untilEnded(batch: UnitBatch, nowNs: number): Promise<'ok' | 'failed' | 'unsent'> {
  return new Promise((resolve) => {
    const started = batch.add(nowNs, (ok) => resolve(ok ? 'ok' : 'failed'));
    batch.flush();
    if (!started) resolve('unsent');
  });
}
