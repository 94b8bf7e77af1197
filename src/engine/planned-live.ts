/**
 * A planned run (bench's passes, over calls or whole wallet syncs) as its watchers see it
 * (--dashboard, --out): each unit, as it ends, added up second by second (sinks/live-seconds.ts),
 * with the plan's progress beside it. The command feeds it from the runner's events, as it feeds
 * the progress bar; the run's figures are the database's, and these seconds hold the same units,
 * warm-up passes included.
 */
import type { OutputSet } from './outputs/output-set';
import type { PlanProgress } from './outputs/output';
import { LiveSeconds, type UnitEnd } from './sinks/live-seconds';

export interface PlannedRunShape {
  passes: number;
  warmup: number;
  /** Units in flight per server. */
  concurrency: number;
  servers: string[];
}

export class PlannedRunLive {
  private seconds: LiveSeconds<string> | undefined;
  private progress: PlanProgress | undefined;

  constructor(
    private readonly outputs: OutputSet,
    private readonly plan: PlannedRunShape,
    /** An output failed: the run is to stop (stop() then throws what it threw). */
    private readonly failed: () => void,
  ) {}

  /** The run is recorded as `runId`, with `total` units planned of which `alreadyDone` were measured before (a resumed run). */
  start(runId: number, total: number, alreadyDone: number): void {
    this.outputs.start({ run: runId, shard: null });
    this.progress = { done: alreadyDone, total, pass: 0, passes: this.plan.passes, warmup: this.plan.warmup > 0 };
    this.seconds = new LiveSeconds<string>({
      interval: (record, state) => this.outputs.interval(record, state),
      now: () => ({ vus: this.plan.concurrency, state: this.progress ? { progress: { ...this.progress } } : {} }),
      failed: this.failed,
    });
    for (const server of this.plan.servers) this.seconds.begin(server);
  }

  started(server: string): void {
    this.seconds?.started(server);
  }

  /** A unit of pass `pass` ended; `done` units of the plan are measured now. */
  ended(server: string, method: string, end: UnitEnd, pass: number, done: number): void {
    if (this.progress) this.progress = { ...this.progress, done, pass, warmup: pass < this.plan.warmup };
    this.seconds?.ended(server, method, end);
  }

  /** The run is over: its last second goes out; throws what an output threw on the way, if one did. */
  async stop(): Promise<void> {
    await this.seconds?.stop();
    if (this.seconds?.failure) throw this.seconds.failure;
  }
}
