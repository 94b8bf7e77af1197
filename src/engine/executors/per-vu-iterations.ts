/**
 * k6's per-vu-iterations: each of `vus` virtual users runs exactly `iterations` iterations, then
 * stops; the run ends when the last one is done (or at --duration, a limit, as k6's maxDuration).
 */
import { VirtualUsers } from '../virtual-users';
import { addedUp, countProblem, thinkText, thinkTimeMismatch, thinkTimeProblem, type Executor } from './executor';
import type { LoadModel } from '../../core/load-types';
import { shareOf } from '../../core/shard';

export type PerVuIterations = Extract<LoadModel, { kind: 'per-vu-iterations' }>;

export const perVuIterations: Executor<PerVuIterations> = {
  name: 'per-vu-iterations',
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
