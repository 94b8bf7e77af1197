/**
 * The request iteration: each unit is one request of the load's mix (src/load/requests.ts), sent
 * through the run's connections in per-turn batches (turn-batch.ts) and ended by its
 * pending entry (request-call.ts).
 */
import type { IterationContext } from '../iteration';
import type { RequestContext } from './request-call';
import { TurnBatch } from './turn-batch';

export function requestIteration(ctx: RequestContext): IterationContext {
  return {
    clock: ctx.clock,
    batch: () => new TurnBatch(ctx),
    onProgress: (hook) => (ctx.conns.onReplies = hook),
    quiet: () => ctx.conns.inFlight === 0,
  };
}
