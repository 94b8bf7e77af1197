/**
 * k6's per-vu-iterations: each of `vus` virtual users runs exactly `iterations` iterations, then
 * stops; the run ends when the last one is done (or at --duration, a limit, as k6's maxDuration).
 */
import { VirtualUsers } from '../virtual-users';
import { addedUp, countProblem, thinkText, thinkTimeMismatch, thinkTimeProblem, type Executor } from './executor';
import { modelOptions, THINK_TIME_OPTION, thinkTimeFrom, VUS_OPTION } from './options';
import { shareOf } from '../../core/shard';

/** Each of `vus` users runs `iterations` iterations. */
export type PerVuIterations = {
  kind: 'per-vu-iterations';
  vus: number;
  iterations: number;
  thinkTimeMs: number;
};

const OPTIONS = modelOptions({
  'iterations-per-vu': { type: 'number', describe: 'closed model: each of the --vus users sends exactly this many requests (k6 per-vu-iterations)' },
  vus: VUS_OPTION,
  'think-time': THINK_TIME_OPTION,
});

export const perVuIterations: Executor<PerVuIterations, typeof OPTIONS> = {
  kind: 'per-vu-iterations',
  name: 'per-vu-iterations',
  choice: {
    flag: 'iterations-per-vu',
    usage: '--iterations-per-vu K [--vus N]',
    options: OPTIONS,
    // k6 runs iterations with one user unless told otherwise.
    build: (a, problems) => ({ kind: 'per-vu-iterations', vus: a.vus ?? 1, iterations: a['iterations-per-vu']!, thinkTimeMs: thinkTimeFrom(a['think-time'], problems) }),
  },
  closed: true,
  duration: { defaultMs: 600_000 },
  endsWhenDone: true,
  validate: (c) => [...countProblem('--vus', c.vus), ...countProblem('--iterations-per-vu', c.iterations), ...thinkTimeProblem(c.thinkTimeMs)],
  lengthMs: (_, durationMs) => durationMs,
  targetRateAt: () => null,
  maxVus: (c) => c.vus,
  shareOf: (c, shard) => ({ ...c, vus: shareOf(shard, c.vus) }),
  describe: (c) => `closed, ${c.vus} VUs × ${c.iterations} iterations${thinkText(c.thinkTimeMs)}`,
  mismatch: (a, b) => thinkTimeMismatch(a.thinkTimeMs, b.thinkTimeMs),
  merge: (shares) => ({ ...shares[0], vus: addedUp(shares, (m) => m.vus) }),
  create: (ctx, c, lengthMs) => {
    const done = new Array<number>(c.vus).fill(0);
    let finished = 0;
    const turn = (i: number) => {
      if (done[i] < c.iterations) {
        done[i]++;
        return 'go' as const;
      }
      finished++;
      return 'done' as const;
    };
    const users = new VirtualUsers(ctx, { count: c.vus, thinkTimeMs: c.thinkTimeMs, turn, activeAt: () => c.vus - finished }, lengthMs);
    // Iterations a stop (or the --duration limit) kept from starting still end as outcomes.
    return Object.assign(users, { unsent: () => done.reduce((left, d) => left + c.iterations - d, 0) });
  },
};
