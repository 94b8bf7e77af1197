/**
 * hold: fill `sessions` long-lived sessions, `concurrency` at a time, then keep them (a held wallet
 * is connected and subscribed, as an idle wallet is). No k6 executor does this: a held session
 * is a unit that does not end when it has answered. It drives iterations whose units end well only
 * when their session is kept (the wallet-sync iteration with `hold`); a unit that ends badly is
 * replaced until more than a tenth of the sessions (at least 10) have failed: a server refusing
 * connections would otherwise be retried for ever.
 */
import { untilEnded, type IterationContext } from '../iteration';
import { addedUp, countProblem, type Executor, type Pacer } from './executor';
import { shareOf } from '../../core/shard';

/** Fill `sessions` long-lived sessions, `concurrency` at a time, and keep them. */
export type Hold = {
  kind: 'hold';
  sessions: number;
  concurrency: number;
};

/** The fill's outcome: sessions held, units that ended badly. */
export interface HoldFill extends Pacer {
  readonly held: number;
  readonly failed: number;
}

export const hold: Executor<Hold> = {
  kind: 'hold',
  name: 'hold',
  closed: true,
  duration: null,
  endsWhenDone: true,
  validate: (c) => [...countProblem('--hold', c.sessions), ...countProblem('--hold-concurrency', c.concurrency)],
  // No length of its own: it lasts until its sessions are held.
  lengthMs: () => Infinity,
  targetRateAt: () => null,
  maxVus: (c) => Math.min(c.concurrency, c.sessions),
  shareOf: (c, shard) => ({ ...c, sessions: shareOf(shard, c.sessions) }),
  describe: (c) => `held, ${c.sessions} sessions`,
  merge: (shares) => ({ ...shares[0], sessions: addedUp(shares, (m) => m.sessions) }),
  create: (ctx, c) => fill(ctx, c),
};

function fill(ctx: IterationContext, c: Hold): HoldFill {
  const failureLimit = Math.max(10, c.sessions / 10);
  let held = 0;
  let failed = 0;
  let running = 0;
  let stopped = false;
  let finish: (() => void) | undefined;
  const batch = ctx.batch();
  // Each filler starts a unit only while the sessions held and being made are short of the goal:
  // no surplus sync is made only to be closed.
  const filler = async () => {
    while (!stopped && held + running < c.sessions && failed <= failureLimit) {
      running++;
      const ended = await untilEnded(batch, ctx.clock.now());
      running--;
      if (ended === 'ok') held++;
      // A sync the stop kept from being held did not fail.
      else if (!stopped) failed++;
    }
  };
  return {
    get held() {
      return held;
    },
    get failed() {
      return failed;
    },
    async run() {
      const all = Promise.all(Array.from({ length: Math.min(c.concurrency, c.sessions) }, filler));
      await Promise.race([all, new Promise<void>((resolve) => (finish = resolve))]);
    },
    stop() {
      stopped = true;
      finish?.();
    },
    vusAt: () => running,
  };
}
