/**
 * A planned run (bench's passes, over calls or whole wallet syncs) as its watchers see it
 * (--dashboard, --out): each unit, as it ends, added up second by second (sinks/live-seconds.ts),
 * with the plan's progress beside it. It is one of the run's unit sinks (sinks/unit-sink.ts), so
 * it gets each unit's outcome as the database rows do; the run's figures are the database's, and
 * these seconds hold the same units, warm-up passes included.
 */
import type { OutputSet } from './outputs/output-set';
import type { PlanProgress } from './outputs/output';
import { LiveSeconds, type UnitEnd } from './sinks/live-seconds';
import type { UnitSink } from './sinks/unit-sink';

export interface PlannedRunShape {
  passes: number;
  warmup: number;
  /** Units in flight per server. */
  concurrency: number;
  servers: string[];
}

/** A unit of the plan that ended: on `server`, of kind `unit` (a method, `sync`), in pass `pass`, with `done` units of the plan measured now. */
export interface PlannedUnitEnd {
  server: string;
  unit: string;
  end: UnitEnd;
  pass: number;
  done: number;
}

export class PlannedRunLive implements UnitSink<PlannedUnitEnd> {
  private seconds: LiveSeconds<string> | undefined;
  private progress: PlanProgress | undefined;

  constructor(
    private readonly outputs: OutputSet,
    private readonly plan: PlannedRunShape,
    /** An output failed: the run is to stop (stop() then throws what it threw). */
    private readonly failed: () => void,
  ) {}

  /** The run is recorded (the outputs were told), with `total` units planned of which `alreadyDone` were measured before (a resumed run). */
  start(total: number, alreadyDone: number): void {
    const progress = (this.progress = { done: alreadyDone, total, pass: 0, passes: this.plan.passes, warmup: this.plan.warmup > 0 });
    this.seconds = new LiveSeconds<string>({
      interval: (record, state) => this.outputs.interval(record, state),
      now: () => ({ vus: this.plan.concurrency, state: { progress: { ...progress } } }),
      failed: this.failed,
    });
    for (const server of this.plan.servers) this.seconds.begin(server);
  }

  started(server: string): void {
    this.seconds?.started(server);
  }

  record({ server, unit, end, pass, done }: PlannedUnitEnd): void {
    // Set in place: a copy is taken once a second, when the second closes.
    if (this.progress) Object.assign(this.progress, { done, pass, warmup: pass < this.plan.warmup });
    this.seconds?.ended(server, unit, end);
  }

  /** The run is over: its last second goes out; throws what an output threw on the way, if one did. */
  async stop(): Promise<void> {
    await this.seconds?.stop();
    if (this.seconds?.failure) throw this.seconds.failure;
  }
}
