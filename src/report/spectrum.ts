/**
 * HdrHistogram's percentile distribution plot, as its own plotter draws it: x = 1 / (1 − q) on a
 * log axis, so 90 %, 99 %, 99.9 % … are equally spaced and the tail gets the room it deserves.
 */
import type { Histogram } from 'hdr-histogram-js';
import type { SpectrumPoint } from './load-model';
import { histogramAt } from '../core/percentile-line';

/** Ten points per decade (per added nine), as HdrHistogram's own output uses several per half-distance. */
const STEPS_PER_DECADE = 10;

export function percentileSpectrum(h: Histogram): SpectrumPoint[] {
  const n = h.totalCount;
  if (n === 0) return [];
  const points: SpectrumPoint[] = [];
  // Beyond 1 / (1 − q) = n every percentile is the maximum: the curve ends there, at the max.
  for (let k = 0; ; k++) {
    const x = 10 ** (k / STEPS_PER_DECADE);
    if (x >= n) break;
    const percentile = 100 * (1 - 1 / x);
    points.push({ x, percentile, ms: histogramAt(h, percentile, 1000)! });
  }
  points.push({ x: Math.max(1, n), percentile: 100 * (1 - 1 / Math.max(1, n)), ms: h.maxValue / 1000 });
  return points;
}

/** The nines a tick at 10^j stands for: 1 → 0 %, 10 → 90 %, 100 → 99 % … */
export function nineLabel(decades: number): string {
  if (decades === 0) return '0%';
  return `${(100 - 100 / 10 ** decades).toFixed(Math.max(0, decades - 2))}%`;
}
