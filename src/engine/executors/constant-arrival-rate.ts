/** k6's constant-arrival-rate: `rate` requests per second for the whole duration, whatever the server does. */
import { ArrivalCursor, ArrivalDriver } from '../arrival-driver';
import { allSame, addedUp, type Executor } from './executor';
import { modelOptions } from './options';
import { fmtRate } from '../../core/rate-text';
import type { Shard } from '../../core/shard';

/** `rate` requests (or wallets) per second. */
export type ConstantArrivalRate = {
  kind: 'rate';
  rate: number;
};

const OPTIONS = modelOptions({ rate: { type: 'number', describe: 'open model: constant arrival rate, requests/s' } });

class ConstantArrivals extends ArrivalCursor {
  constructor(
    private readonly model: ConstantArrivalRate,
    durationMs: number,
    shard?: Shard,
  ) {
    super(durationMs, shard);
  }

  protected offsetOf(k: number): number {
    const { model } = this;
    // k·1e9/rate in that order, to the ns: k·(1e9/rate) lands a hair under the end for some rates
    // (29·(1e9/29) < 1e9), which sent one request more than rate × duration.
    return model.rate > 0 ? Math.round((k * 1e9) / model.rate) : Infinity;
  }
}

/** The arrival offsets of `model` in ns, in order (a shard's share with `shard`). */
export function constantArrivals(model: ConstantArrivalRate, durationMs: number, shard?: Shard): ArrivalCursor {
  return new ConstantArrivals(model, durationMs, shard);
}

export const constantArrivalRate: Executor<ConstantArrivalRate, typeof OPTIONS> = {
  kind: 'rate',
  name: 'constant-arrival-rate',
  choice: { flag: 'rate', usage: '--rate R', options: OPTIONS, build: (a) => ({ kind: 'rate', rate: a.rate! }) },
  closed: false,
  duration: { defaultMs: 60_000 },
  validate: (c) => (c.rate > 0 && Number.isFinite(c.rate) ? [] : [`--rate must be a number > 0, got ${c.rate}`]),
  lengthMs: (_, durationMs) => durationMs,
  targetRateAt: (c) => c.rate,
  maxVus: () => 0,
  shareOf: (c) => c,
  describe: (c) => `open, ${fmtRate(c.rate)}/s`,
  // Shards that agree each follow the whole schedule (thinned as they run); ones that differ carry their shares.
  merge: (shares) => (allSame(shares) ? shares[0] : { ...shares[0], rate: addedUp(shares, (m) => m.rate) }),
  create: (ctx, c, lengthMs, shard) => new ArrivalDriver(ctx, constantArrivals(c, lengthMs, shard)),
};
