/**
 * poisson-arrival-rate: an open model whose arrivals are a Poisson process averaging `rate` per
 * second. k6's constant-arrival-rate starts one unit every 1/rate s, a metronome; users who each
 * decide on their own when to come (wallets opening, each on its own) arrive with exponential gaps
 * instead, so bursts and lulls come as they do in such traffic, and a server's queue sees them.
 *
 * The gaps are drawn from a generator seeded with `seed`: the same seed gives the same arrival
 * times, for every server in turn and on every shard. So a shard thins one schedule shared by the
 * whole test (every N-th arrival, as the other arrival-rate executors do), and the shards' arrivals
 * together are exactly the whole test's Poisson schedule.
 */
import { ArrivalCursor, ArrivalDriver } from '../arrival-driver';
import type { Executor } from './executor';
import { modelOptions } from './options';
import { fmtRate } from '../../core/rate-text';
import { seededRandom } from '../../core/random';
import type { Shard } from '../../core/shard';

export type PoissonArrivalRate = {
  kind: 'poisson-arrival-rate';
  rate: number;
  seed: string;
};

const OPTIONS = modelOptions({
  'poisson-rate': { type: 'number', describe: 'open model: arrivals at random (a Poisson process, as of independent users) averaging this many requests/s' },
  'arrival-seed': { type: 'string', default: 'electrum-bench', describe: 'with --poisson-rate: seed of the arrival times (one seed, one schedule, for every server and shard)' },
});

class PoissonArrivals extends ArrivalCursor {
  private readonly uniform: () => number;
  private atNs = 0;

  constructor(
    private readonly model: PoissonArrivalRate,
    durationMs: number,
    shard?: Shard,
  ) {
    super(durationMs, shard);
    this.uniform = seededRandom(model.seed);
  }

  // The cursor asks for every arrival once, in order, also those another shard sends: each shard
  // draws the same gaps in the same order, so all of them follow one schedule.
  protected offsetOf(): number {
    // An exponential gap by inversion; 1 − U lies in (0, 1], so its logarithm is finite.
    this.atNs += (-Math.log(1 - this.uniform()) / this.model.rate) * 1e9;
    return this.atNs;
  }
}

/** The arrival offsets of `model` in ns, in order (a shard's share with `shard`). */
export function poissonArrivals(model: PoissonArrivalRate, durationMs: number, shard?: Shard): ArrivalCursor {
  return new PoissonArrivals(model, durationMs, shard);
}

export const poissonArrivalRate: Executor<PoissonArrivalRate, typeof OPTIONS> = {
  kind: 'poisson-arrival-rate',
  name: 'poisson-arrival-rate',
  choice: {
    flag: 'poisson-rate',
    usage: '--poisson-rate R',
    options: OPTIONS,
    build: (a) => ({ kind: 'poisson-arrival-rate', rate: a['poisson-rate']!, seed: a['arrival-seed'] }),
  },
  closed: false,
  duration: { defaultMs: 60_000 },
  validate: (c) => [
    ...(c.rate > 0 && Number.isFinite(c.rate) ? [] : [`--poisson-rate must be a number > 0, got ${c.rate}`]),
    ...(typeof c.seed === 'string' && c.seed !== '' ? [] : [`--arrival-seed must be a non-empty string, got ${JSON.stringify(c.seed)}`]),
  ],
  lengthMs: (_, durationMs) => durationMs,
  targetRateAt: (c) => c.rate,
  maxVus: () => 0,
  // Every shard draws the whole schedule and sends its every N-th arrival.
  shareOf: (c) => c,
  describe: (c) => `open, Poisson arrivals averaging ${fmtRate(c.rate)}/s (seed ${c.seed})`,
  // Shards of one test thin one schedule: another seed or rate draws another.
  mismatch: (a, b) =>
    a.seed !== b.seed ? `arrival seed ${b.seed} instead of ${a.seed}` : a.rate !== b.rate ? `Poisson rate ${fmtRate(b.rate)}/s instead of ${fmtRate(a.rate)}/s` : undefined,
  merge: (shares) => shares[0],
  // A Poisson process's arrivals in disjoint windows are independent of each other: a window drawn
  // from a seed of its own continues the run's process as truly as drawing on from the last one.
  window: (c, index) => (index === 0 ? c : { ...c, seed: `${c.seed}/window ${index}` }),
  create: (ctx, c, lengthMs, shard) => new ArrivalDriver(ctx, new PoissonArrivals(c, lengthMs, shard)),
};
