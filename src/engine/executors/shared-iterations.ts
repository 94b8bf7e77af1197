/**
 * k6's shared-iterations: `vus` virtual users share `iterations` iterations, each taking the next
 * as soon as it is free, so faster users run more; the run ends when the last is done (or at
 * --duration, a limit, as k6's maxDuration).
 */
import { VirtualUsers } from '../virtual-users';
import { addedUp, countProblem, thinkText, thinkTimeMismatch, thinkTimeProblem, type Executor } from './executor';
import { modelOptions, THINK_TIME_OPTION, thinkTimeFrom, VUS_OPTION } from './options';
import { shareOf } from '../../core/shard';

/** `vus` users share `iterations` iterations. */
export type SharedIterations = {
  kind: 'shared-iterations';
  vus: number;
  iterations: number;
  thinkTimeMs: number;
};

const OPTIONS = modelOptions({
  iterations: { type: 'number', describe: 'closed model: exactly this many requests, shared by the --vus users (k6 shared-iterations)' },
  vus: VUS_OPTION,
  'think-time': THINK_TIME_OPTION,
});

export const sharedIterations: Executor<SharedIterations, typeof OPTIONS> = {
  kind: 'shared-iterations',
  name: 'shared-iterations',
  choice: {
    flag: 'iterations',
    usage: '--iterations K [--vus N]',
    options: OPTIONS,
    // k6 runs iterations with one user unless told otherwise.
    build: (a, problems) => ({ kind: 'shared-iterations', vus: a.vus ?? 1, iterations: a.iterations!, thinkTimeMs: thinkTimeFrom(a['think-time'], problems) }),
  },
  closed: true,
  duration: { defaultMs: 600_000 },
  endsWhenDone: true,
  validate: (c) => [
    ...countProblem('--vus', c.vus),
    ...countProblem('--iterations', c.iterations),
    // As k6: a user that could never take an iteration is a mistake in the plan.
    ...(c.iterations < c.vus ? [`--iterations ${c.iterations} is fewer than --vus ${c.vus}: some users would never run`] : []),
    ...thinkTimeProblem(c.thinkTimeMs),
  ],
  lengthMs: (_, durationMs) => durationMs,
  targetRateAt: () => null,
  maxVus: (c) => c.vus,
  shareOf: (c, shard) => {
    const iterations = shareOf(shard, c.iterations);
    return { ...c, iterations, vus: iterations === 0 ? 0 : Math.max(1, shareOf(shard, c.vus)) };
  },
  describe: (c) => `closed, ${c.vus} VUs sharing ${c.iterations} iterations${thinkText(c.thinkTimeMs)}`,
  mismatch: (a, b) => thinkTimeMismatch(a.thinkTimeMs, b.thinkTimeMs),
  merge: (shares) => ({ ...shares[0], vus: addedUp(shares, (m) => m.vus), iterations: addedUp(shares, (m) => m.iterations) }),
  create: (ctx, c, lengthMs) => {
    let taken = 0;
    let finished = 0;
    const turn = () => {
      if (taken < c.iterations) {
        taken++;
        return 'go' as const;
      }
      finished++;
      return 'done' as const;
    };
    const users = new VirtualUsers(ctx, { count: c.vus, thinkTimeMs: c.thinkTimeMs, turn, activeAt: () => c.vus - finished }, lengthMs);
    // Iterations a stop (or the --duration limit) kept from starting still end as outcomes.
    return Object.assign(users, { unsent: () => c.iterations - taken });
  },
};
