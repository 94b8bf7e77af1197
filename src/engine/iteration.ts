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
}
