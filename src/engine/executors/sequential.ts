/**
 * The sequential plan: `passes` passes over the iteration's planned units, the first `warmup` of
 * them warm-up, run by closed-loop workers (each takes the plan's next unit when its previous one
 * has ended) until the plan is done or a stop. k6 has no such executor: its iterations are drawn on
 * demand, where a benchmark's are a fixed plan in a recorded order that a resumed run continues.
 *
 * Concurrency 1 is the sequential mode of the published comparisons: one unit in flight in all,
 * servers interleaved as the plan orders them. Concurrency N > 1 is N units in flight to EACH
 * server: every server gets its own N workers over its own share of the plan, so a slow server
 * cannot take the workers a fast one should have had.
 */
import { giveSpareMoment, givingSpareMoments } from '../../core/spare-time';
import { untilEnded, type PlanBatch, type PlanContext } from '../iteration';
import { countOrZeroProblem, countProblem, type Pacer, type PlanExecutor } from './executor';

export interface SequentialPlan {
  kind: 'sequential';
  /** Passes over the plan, warm-up included. */
  passes: number;
  /** Leading passes run and stored but left out of the figures. */
  warmup: number;
  /** Workers: in all at 1, per server above 1. */
  concurrency: number;
}

export const sequential: PlanExecutor<SequentialPlan> = {
  name: 'sequential',
  validate: (c) => {
    const passes = countProblem('--passes', c.passes);
    const warmup = countOrZeroProblem('--warmup', c.warmup);
    const problems = [...passes, ...warmup, ...countProblem('--concurrency', c.concurrency)];
    // A plan of warm-up only would report empty figures as if it had measured; only two valid
    // counts can be compared (a bad one is named above already).
    if (!passes.length && !warmup.length && c.warmup >= c.passes) problems.push(`--warmup (${c.warmup}) must be smaller than --passes (${c.passes})`);
    return problems;
  },
  // The stored strings predate this executor (runs' selfcheck_json): kept as they were.
  describe: (c, servers) => {
    if (c.concurrency === 1) return 'sequential';
    return servers > 1 ? `closed-loop x${c.concurrency} per server` : `closed-loop x${c.concurrency}`;
  },
  create: (ctx, c) => new SequentialWorkers(ctx, c),
};

class SequentialWorkers implements Pacer {
  private stopped = false;
  private active = 0;

  constructor(
    private readonly ctx: PlanContext,
    private readonly plan: SequentialPlan,
  ) {}

  /** Resolves when the plan is done, or after a stop once the units in flight have ended (the caller bounds that wait). */
  async run(): Promise<void> {
    const { plan, ctx } = this;
    const parts = plan.concurrency === 1 ? [undefined] : Array.from({ length: ctx.servers }, (_, s) => s);
    // One unit in flight in all: between two units nothing is being timed, the moment the
    // bookkeeping that waits for one (core/spare-time.ts) has, so none of it runs while an answer
    // is awaited. With more in flight no moment is ever free, and it runs after its bounded wait.
    const gives = plan.concurrency === 1;
    if (gives) givingSpareMoments(true);
    try {
      await Promise.all(parts.map((server) => this.runPart(server, gives)));
    } finally {
      if (gives) givingSpareMoments(false);
    }
  }

  /** One cursor per pass, shared by the part's workers: a worker moves on to the next pass as soon as this one has nothing left to start, without waiting for the others. */
  private async runPart(server: number | undefined, givesSpareMoments: boolean): Promise<void> {
    const { plan, ctx } = this;
    if (plan.passes < 1) return; // nothing planned (validate() refuses it; a caller that skipped it gets no pass)
    let pass = 0;
    let batch = ctx.batch({ pass, warmup: pass < plan.warmup, server });
    const next = (): PlanBatch | undefined => {
      while (!batch.more) {
        if (++pass >= plan.passes) return undefined;
        batch = ctx.batch({ pass, warmup: pass < plan.warmup, server });
      }
      return batch;
    };
    const worker = async () => {
      while (!this.stopped) {
        const b = next();
        if (!b) return;
        this.active++;
        await untilEnded(b, ctx.clock.now());
        this.active--;
        if (givesSpareMoments && giveSpareMoment()) await betweenUnits();
      }
    };
    await Promise.all(Array.from({ length: plan.concurrency }, worker));
  }

  stop(): void {
    this.stopped = true;
  }

  vusAt(): number {
    return this.active;
  }
}

/**
 * The rest of the spare moments due now, and a loop turn for what they set going: a step resumes
 * as a microtask chain of its own, which must have run before the next unit's write, not after.
 */
function betweenUnits(): Promise<void> {
  while (giveSpareMoment());
  return new Promise((resolve) => setImmediate(resolve));
}
