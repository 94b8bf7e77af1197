/**
 * The one line of latency percentiles every summary, store and report prints: p50, p90, p99,
 * p99.9 and max. Whatever it is read from, the line is monotone and no percentile exceeds the max.
 *
 * Why this is needed: HdrHistogram answers a percentile with the highest value equivalent to its
 * bucket (up to 0.1 % above what was recorded), while its max is exact; read raw, an interrupted
 * run printed p99 8.799 ms above max 8.796 ms. A figure that can only be that bucket's value is
 * the max itself, so each is capped at the max.
 *
 * p99.9 is a claim about the worst one in a thousand: under 1,000 samples it is just the max (or
 * close to it), so it is not shown as p99.9 at all (null, printed '-').
 */
import type { Histogram } from 'hdr-histogram-js';
import { percentile } from './quantiles';

export const P999_MIN_SAMPLES = 1000;

/** Where a reader looks when p99.9 shows '-'. */
export const P999_NOTE = `p99.9 is shown only over ${P999_MIN_SAMPLES.toLocaleString('en-US')} samples or more ('-' below that: it would be the max under another name)`;

export interface PercentileLine {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

/** The quantiles of a line, in its order: what a streaming picker must pick for it. */
export const LINE_QUANTILES = [0.5, 0.9, 0.99, 0.999] as const;

/**
 * The line from `count` samples, their exact `max` and raw quantiles (`at(q)`, q in 0..1), each
 * value divided by `unit` (e.g. 1000 for µs → ms).
 */
export function percentileLine(count: number, at: (q: number) => number | null, max: number | null, unit = 1): PercentileLine {
  if (count === 0 || max === null) return { count, p50: null, p90: null, p99: null, p999: null, max: null };
  let floor = -Infinity;
  const [p50, p90, p99, p999] = LINE_QUANTILES.map((q) => {
    const raw = at(q);
    const v = Math.max(floor, Math.min(raw ?? max, max));
    floor = v;
    return v / unit;
  });
  return { count, p50, p90, p99, p999: count >= P999_MIN_SAMPLES ? p999 : null, max: max / unit };
}

/** One percentile (0–100) of an HdrHistogram, capped at its exact max; null when it is empty. */
export function histogramAt(h: Histogram, percentile: number, unit = 1): number | null {
  return h.totalCount > 0 ? Math.min(h.getValueAtPercentile(percentile), h.maxValue) / unit : null;
}

/** The line of an HdrHistogram (its values divided by `unit`). */
export function histogramLine(h: Histogram, unit = 1): PercentileLine {
  return percentileLine(h.totalCount, (q) => histogramAt(h, q * 100), h.totalCount > 0 ? h.maxValue : null, unit);
}

/** The line of ascending samples (nearest rank, as src/core/quantiles.ts defines it). */
export function sortedLine(sorted: readonly number[], unit = 1): PercentileLine {
  return percentileLine(sorted.length, (q) => percentile(sorted, q), sorted.length ? sorted[sorted.length - 1] : null, unit);
}
