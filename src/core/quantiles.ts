/**
 * The one definition of percentiles and medians, used by bench, store, report and dataset.
 *
 * Nearest rank: the q-quantile of n ascending values is the value of rank ceil(q·n) (1-based,
 * at least 1). It is always a value that was observed, and it is what HdrHistogram reports, so a
 * figure read from samples and one read from a histogram mean the same thing. The median is the
 * 0.5-quantile: on an even count, the lower of the two middle values.
 */

/** 1-based rank of the q-quantile among n values (q in 0..1). */
export function quantileRank(q: number, n: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile ${q} is not in 0..1`);
  return Math.min(n, Math.max(1, Math.ceil(q * n)));
}

/** The q-quantile of ascending numbers (an array or a typed array), or null when there are none. */
export function percentile(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[quantileRank(q, sorted.length) - 1];
}

export function median(sorted: readonly number[]): number | null {
  return percentile(sorted, 0.5);
}

/** Sorts a copy ascending and takes its median. */
export function medianOfUnsorted(values: readonly number[]): number | null {
  return median([...values].sort((a, b) => a - b));
}

/**
 * Picks quantiles from an ascending stream of n values whose count is known up front, holding
 * nothing but the answers: memory stays flat however long the stream.
 */
export class StreamingQuantiles {
  private seen = 0;
  private readonly ranks: number[];
  readonly values: Array<number | null>;
  max: number | null = null;

  constructor(
    readonly n: number,
    readonly qs: readonly number[],
  ) {
    this.ranks = qs.map((q) => (n === 0 ? 0 : quantileRank(q, n)));
    this.values = qs.map(() => null);
  }

  push(v: number): void {
    this.seen++;
    if (this.max !== null && v < this.max) throw new Error('StreamingQuantiles: values must arrive in ascending order');
    this.max = v;
    for (let i = 0; i < this.ranks.length; i++) if (this.ranks[i] === this.seen) this.values[i] = v;
  }
}
