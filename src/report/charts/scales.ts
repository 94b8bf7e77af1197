/**
 * Explicit scale domains, computed once per chart from its data: every panel of a chart (main view,
 * error lane, one facet per server) gets the same x and y, so they line up without relying on
 * Vega-Lite's scale resolution across nested concatenations.
 */
export interface ScaleSpec {
  type: 'linear' | 'log' | 'symlog';
  domain: [number, number];
  zero?: boolean;
  nice?: boolean;
}

export interface AxisScale {
  scale: ScaleSpec;
  /** Tick values when Vega's own would be poor: its symlog ticks are linear, useless over decades. */
  ticks?: number[];
}

function extent(values: Iterable<number>): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? [lo, hi] : null;
}

/** 1, 2, 5, 10, 20, 50 … up to max. */
function oneTwoFive(max: number): number[] {
  const out: number[] = [];
  for (let decade = 1; decade <= max * 10; decade *= 10) for (const m of [1, 2, 5]) if (m * decade <= max * 1.05) out.push(m * decade);
  return out;
}

// A log axis padded by a fraction of a decade instead of Vega's "nice" whole decades, which can
// leave most of the plot empty.
const LOG_PAD = 1.15;

/** Address sizes; a log axis cannot show an empty address (0 UTXOs), so those fall back to symlog. */
export function sizeScale(sizes: number[], log: boolean): AxisScale {
  const e = extent(sizes) ?? [0, 1];
  const max = Math.max(1, e[1]);
  if (!log) return { scale: { type: 'linear', domain: [0, max], zero: true, nice: true } };
  if (e[0] <= 0) return { scale: { type: 'symlog', domain: [0, max * LOG_PAD], nice: false }, ticks: [0, ...oneTwoFive(max * LOG_PAD)] };
  return { scale: { type: 'log', domain: [e[0] / LOG_PAD, Math.max(e[0] * 10, max) * LOG_PAD], nice: false } };
}

/** Latencies in ms; all positive (a reply takes time), so a log axis needs no fallback. */
export function latencyScale(ms: number[], log: boolean): AxisScale {
  const e = extent(ms.filter((v) => v > 0)) ?? [1, 10];
  if (!log) return { scale: { type: 'linear', domain: [0, e[1]], zero: true, nice: true } };
  return { scale: { type: 'log', domain: [e[0] / LOG_PAD, Math.max(e[0] * 10, e[1]) * LOG_PAD], nice: false } };
}
