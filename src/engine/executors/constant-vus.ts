/** k6's constant-vus: `vus` virtual users, each with one request in flight, for the whole duration. */
import { VirtualUsers } from '../virtual-users';
import { addedUp, countProblem, thinkText, thinkTimeMismatch, thinkTimeProblem, type Executor } from './executor';
import { modelOptions, THINK_TIME_OPTION, thinkTimeFrom, VUS_OPTION } from './options';
import { shareOf } from '../../core/shard';

/** `vus` virtual users, one request in flight each, pausing `thinkTimeMs` after each answer. */
export type ConstantVus = {
  kind: 'vus';
  vus: number;
  thinkTimeMs: number;
};

const OPTIONS = modelOptions({ vus: VUS_OPTION, 'think-time': THINK_TIME_OPTION });

export const constantVus: Executor<ConstantVus, typeof OPTIONS> = {
  kind: 'vus',
  name: 'constant-vus',
  choice: { flag: 'vus', usage: '--vus N', options: OPTIONS, build: (a, problems) => ({ kind: 'vus', vus: a.vus!, thinkTimeMs: thinkTimeFrom(a['think-time'], problems) }) },
  closed: true,
  duration: { defaultMs: 60_000 },
  validate: (c) => [...countProblem('--vus', c.vus), ...thinkTimeProblem(c.thinkTimeMs)],
  lengthMs: (_, durationMs) => durationMs,
  targetRateAt: () => null,
  maxVus: (c) => c.vus,
  // Every shard runs at least one user: a shard with none would measure nothing.
  shareOf: (c, shard) => ({ ...c, vus: Math.max(1, shareOf(shard, c.vus)) }),
  describe: (c) => `closed, ${c.vus} VUs${thinkText(c.thinkTimeMs)}`,
  mismatch: (a, b) => thinkTimeMismatch(a.thinkTimeMs, b.thinkTimeMs),
  merge: (shares) => ({ ...shares[0], vus: addedUp(shares, (m) => m.vus) }),
  create: (ctx, c, lengthMs) => new VirtualUsers(ctx, { count: c.vus, thinkTimeMs: c.thinkTimeMs, turn: () => 'go', activeAt: () => c.vus }, lengthMs),
};
