/**
 * The closed model, shared by the virtual-user executors: each virtual user sends its next request
 * when its previous one has answered (and its think time passed). The executor's UserSchedule
 * says, each time a user is free, whether it sends now, waits (a ramp not yet at it) or is done
 * (its iterations ran out).
 */
import { untilEnded, type IterationContext } from './iteration';
import type { Pacer } from './executors/executor';
import { WakeableSleeps } from '../core/wakeable-sleeps';

export interface UserSchedule {
  /** Virtual users started (some may wait for a ramp to reach them). */
  count: number;
  thinkTimeMs: number;
  /** User `i` is free at `tMs`: send now ('go'), look again in 50 ms ('wait'), or stop ('done'). A 'go' is one iteration. */
  turn(i: number, tMs: number): 'go' | 'wait' | 'done';
  /** Users active at `tMs`, for the interval record. */
  activeAt(tMs: number): number;
}

/** Runs a schedule's users until the duration is over, every user is done, or stop() is called. */
export class VirtualUsers implements Pacer {
  private stopped = false;
  private readonly sleeps = new WakeableSleeps();

  constructor(
    private readonly ctx: IterationContext,
    private readonly users: UserSchedule,
    private readonly durationMs: number,
  ) {}

  private finish: (() => void) | undefined;

  /** Resolves when the duration is over or stop() is called (requests in flight are the runner's to wait for). */
  async run(): Promise<void> {
    const stopped = new Promise<void>((resolve) => (this.finish = resolve));
    await Promise.race([this.all(), stopped]);
  }

  vusAt(tMs: number): number | null {
    return this.users.activeAt(tMs);
  }

  private async all(): Promise<void> {
    const { ctx, users } = this;
    const endNs = this.durationMs * 1e6;
    const thinkMs = users.thinkTimeMs;
    const batch = ctx.batch();
    const user = async (i: number) => {
      while (!this.stopped && ctx.clock.now() < endNs) {
        const tMs = ctx.clock.now() / 1e6;
        const turn = users.turn(i, tMs);
        if (turn === 'done') return;
        if (turn === 'wait') {
          await this.sleep(50);
          continue;
        }
        // In a closed model the next request is due when the previous one answered: intended = now.
        const sent = (await untilEnded(batch, ctx.clock.now())) !== 'unsent';
        // No usable connection (an outage): the failure is recorded; wait about one reconnect
        // step, so an outage costs a few errors per user per second, not one per poll.
        if (!sent) await this.sleep(250);
        if (thinkMs > 0) await this.sleep(thinkMs);
      }
    };
    await Promise.all(Array.from({ length: users.count }, (_, i) => user(i)));
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.sleeps.sleep(ms);
  }

  stop(): void {
    this.stopped = true;
    this.sleeps.wakeAll();
    this.finish?.();
  }
}
