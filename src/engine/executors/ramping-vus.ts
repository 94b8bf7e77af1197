/** k6's ramping-vus: the number of virtual users follows the stages; users beyond the target wait until they are needed. */
import { VirtualUsers } from '../virtual-users';
import { rampProblems, rampValueAt, stagesLengthMs } from '../ramp';
import { addedUp, stageDurationsMismatch, summedStages, thinkText, thinkTimeMismatch, thinkTimeProblem, type Executor } from './executor';
import { modelOptions, stagesFrom, THINK_TIME_OPTION, thinkTimeFrom } from './options';
import type { Stage } from '../../core/load-types';
import { shareOf } from '../../core/shard';

/** The number of virtual users ramps from `startVus` through each stage's target. */
export type RampingVus = {
  kind: 'vus-stages';
  stages: Stage[];
  startVus: number;
  thinkTimeMs: number;
};

const OPTIONS = modelOptions({
  'vus-stages': { type: 'string', describe: 'closed model: ramping virtual clients, e.g. "30s:10,1m:100"' },
  'start-vus': { type: 'number', default: 0, describe: 'the number --vus-stages ramps from' },
  'think-time': THINK_TIME_OPTION,
});

const vusAt = (c: RampingVus, tMs: number) => Math.round(rampValueAt(c.stages, c.startVus, tMs));

export const rampingVus: Executor<RampingVus, typeof OPTIONS> = {
  kind: 'vus-stages',
  name: 'ramping-vus',
  choice: {
    flag: 'vus-stages',
    usage: '--vus-stages "..."',
    options: OPTIONS,
    build: (a, problems) => ({
      kind: 'vus-stages',
      stages: stagesFrom('vus-stages', a['vus-stages']!, problems),
      startVus: Math.round(a['start-vus']),
      thinkTimeMs: thinkTimeFrom(a['think-time'], problems),
    }),
  },
  closed: true,
  duration: null,
  validate: (c) => [...rampProblems('--vus-stages', c.stages, '--start-vus', c.startVus), ...thinkTimeProblem(c.thinkTimeMs)],
  lengthMs: (c) => stagesLengthMs(c.stages),
  targetRateAt: () => null,
  maxVus: (c) => Math.max(c.startVus, ...c.stages.map((s) => s.target)),
  shareOf: (c, shard) => ({ ...c, startVus: shareOf(shard, c.startVus), stages: c.stages.map((st) => ({ ...st, target: shareOf(shard, st.target) })) }),
  describe: (c) => `closed ramp, ${c.startVus} → ${c.stages.map((s) => s.target).join(' → ')} VUs${thinkText(c.thinkTimeMs)}`,
  mismatch: (a, b) => stageDurationsMismatch(a.stages, b.stages) ?? thinkTimeMismatch(a.thinkTimeMs, b.thinkTimeMs),
  merge: (shares) => {
    const [first] = shares;
    return { ...first, startVus: addedUp(shares, (m) => m.startVus), stages: summedStages(shares) };
  },
  create: (ctx, c, lengthMs) =>
    new VirtualUsers(
      ctx,
      { count: rampingVus.maxVus(c), thinkTimeMs: c.thinkTimeMs, turn: (i, tMs) => (i < vusAt(c, tMs) ? 'go' : 'wait'), activeAt: (tMs) => vusAt(c, tMs) },
      lengthMs,
    ),
};
