/**
 * k6's ramping-arrival-rate: the rate goes linearly from one target to the next over each stage,
 * so the number of requests due by time t is the integral of the rate; the k-th request is due
 * where that integral reaches k.
 */
import { ArrivalCursor, ArrivalDriver } from '../arrival-driver';
import { rampProblems, rampValueAt, stagesLengthMs } from '../ramp';
import { addedUp, allSame, stageDurationsMismatch, summedStages, type Executor } from './executor';
import { modelOptions, stagesFrom } from './options';
import { fmtRate } from '../../core/rate-text';
import type { Stage } from '../../core/load-types';
import type { Shard } from '../../core/shard';

/** The rate ramps from `startRate` through each stage's target. */
export type RampingArrivalRate = {
  kind: 'stages';
  stages: Stage[];
  startRate: number;
};

const OPTIONS = modelOptions({
  stages: { type: 'string', describe: 'open model: ramping arrival rate, e.g. "30s:100,2m:2000,30s:0"' },
  'start-rate': { type: 'number', default: 0, describe: 'the rate --stages ramps from' },
});

class RampingArrivals extends ArrivalCursor {
  // Stage by stage: N(t) = r0·t + (r1 − r0)·t² / (2T) requests within a stage, solved for t.
  private stage = 0;
  private stageStartNs = 0;
  private r0: number;
  private before = 0; // requests due before this stage (fractional)

  constructor(
    private readonly model: RampingArrivalRate,
    durationMs: number,
    shard?: Shard,
  ) {
    super(durationMs, shard);
    this.r0 = model.startRate;
  }

  protected offsetOf(k: number): number {
    const { model } = this;
    for (;;) {
      const s = model.stages[this.stage];
      if (!s) return Infinity;
      const T = s.durationMs / 1000;
      const r1 = s.target;
      const inStage = ((this.r0 + r1) / 2) * T;
      if (k < this.before + inStage) {
        const n = k - this.before; // requests into this stage
        const a = (r1 - this.r0) / (2 * T);
        const t = Math.abs(a) < 1e-12 ? n / this.r0 : (-this.r0 + Math.sqrt(Math.max(0, this.r0 * this.r0 + 4 * a * n))) / (2 * a);
        return this.stageStartNs + t * 1e9;
      }
      this.before += inStage;
      this.stageStartNs += s.durationMs * 1e6;
      this.r0 = r1;
      this.stage++;
    }
  }
}

/** The arrival offsets of a ramp in ns, in order (a shard's share with `shard`). */
export function rampingArrivals(model: RampingArrivalRate, durationMs: number, shard?: Shard): ArrivalCursor {
  return new RampingArrivals(model, durationMs, shard);
}

export const rampingArrivalRate: Executor<RampingArrivalRate, typeof OPTIONS> = {
  kind: 'stages',
  name: 'ramping-arrival-rate',
  choice: {
    flag: 'stages',
    usage: '--stages "30s:100,..."',
    options: OPTIONS,
    build: (a, problems) => ({ kind: 'stages', stages: stagesFrom('stages', a.stages!, problems), startRate: a['start-rate'] }),
  },
  closed: false,
  duration: null,
  validate: (c) => rampProblems('--stages', c.stages, '--start-rate', c.startRate),
  lengthMs: (c) => stagesLengthMs(c.stages),
  targetRateAt: (c, tMs) => rampValueAt(c.stages, c.startRate, tMs),
  maxVus: () => 0,
  shareOf: (c) => c,
  describe: (c) => `open ramp, ${fmtRate(c.startRate)} → ${c.stages.map((s) => fmtRate(s.target)).join(' → ')}/s`,
  mismatch: (a, b) => stageDurationsMismatch(a.stages, b.stages),
  merge: (shares) => {
    const [first] = shares;
    if (allSame(shares)) return first;
    return { ...first, startRate: addedUp(shares, (m) => m.startRate), stages: summedStages(shares) };
  },
  create: (ctx, c, lengthMs, shard) => new ArrivalDriver(ctx, new RampingArrivals(c, lengthMs, shard)),
};
