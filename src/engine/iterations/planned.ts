/**
 * An iteration over planned units that each go out on their own as they start (a bench's call
 * through its pool, a wallet sync on its own connection): nothing is held for a flush, so what is
 * left to say is the plan, how one unit runs, and where a unit that throws is reported.
 */
import type { PlanBatch, PlanContext, PlanPart } from '../iteration';
import { RunClock } from '../run-clock';

export interface PlannedUnits<U> {
  /** Servers the plan spreads over. */
  servers: number;
  /** `part`'s units in the plan's order (only those still to do, for a resumed run). */
  unitsOf(part: PlanPart): Iterator<U>;
  /** Runs one unit to its end, its outcome recorded. */
  run(unit: U, part: PlanPart): Promise<void>;
  /** run() threw (a write refused, say): the run is to stop and fail with it. */
  failed(err: unknown): void;
}

export function plannedIteration<U>(units: PlannedUnits<U>): PlanContext {
  return {
    clock: new RunClock(process.hrtime.bigint()),
    servers: units.servers,
    batch: (part) => new StartedAtOnce(units, part),
  };
}

class StartedAtOnce<U> implements PlanBatch {
  readonly size = 0;
  readonly oldestNs = Infinity;
  private readonly cursor: Iterator<U>;
  private next: IteratorResult<U>;

  constructor(
    private readonly units: PlannedUnits<U>,
    private readonly part: PlanPart,
  ) {
    this.cursor = units.unitsOf(part);
    // One unit looked at ahead, so `more` is known without starting anything.
    this.next = this.cursor.next();
  }

  get more(): boolean {
    return !this.next.done;
  }

  add(_intendedNs: number, whenDone?: (ok: boolean) => void): boolean {
    if (this.next.done) return false;
    const unit = this.next.value;
    this.next = this.cursor.next();
    const { units } = this;
    void units.run(unit, this.part).then(
      () => whenDone?.(true),
      (err: unknown) => {
        units.failed(err);
        whenDone?.(false);
      },
    );
    return true;
  }

  flush(): void {}
}
