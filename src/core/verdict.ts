/**
 * "Did it get slower?" as a verdict, not a bare percentage (issue #21): the change of B against A
 * with a 95 % confidence interval, and `faster`, `slower` or `no change` (benchstat's `~`). A
 * change is called only when its whole interval lies on one side of zero and it is larger than a
 * noise floor (default 2 %): on a shared machine identical runs move a few percent, and a verdict
 * must not turn that into news.
 *
 * The pairing the data offers is used: per-address medians are paired by address, so the statistic
 * is the median of the per-address log ratios log(b/a) (each address its own control; a few slow
 * addresses move it no more than their count) and its interval comes from a paired bootstrap,
 * resampling addresses and each run's passes. Samples with no pairing (load intervals, wallet syncs) are bootstrapped on
 * the ratio of the two medians. The bootstrap is seeded, so a comparison prints the same interval
 * every time; its two-sided p-value is the share of resamples on the far side of zero, doubled.
 */
import { seededRandom } from './random';
import { medianOfUnsorted, percentile } from './quantiles';

export type VerdictWord = 'faster' | 'slower' | 'no change';

export interface Verdict {
  /** How the interval was found, for the table: "paired bootstrap" or "bootstrap". */
  test: string;
  /** Pairs (paired) or the smaller sample (unpaired) the verdict stands on. */
  n: number;
  /** B against A, percent (negative: B is faster); null without enough samples. */
  changePct: number | null;
  /** The 95 % interval of the change, percent. */
  ciPct: [number, number] | null;
  /** Two-sided p-value of "no change", from the bootstrap (its resolution is 1 / resamples). */
  p: number | null;
  /** Null when there were too few samples to say anything (`why` says so). */
  verdict: VerdictWord | null;
  why?: string;
}

export interface VerdictOptions {
  /** Changes within ± this percent are `no change` even when the interval excludes zero. */
  noiseFloorPct?: number;
  /** Fewest pairs (or samples per side) a verdict needs. */
  minSamples?: number;
  resamples?: number;
  /** The bootstrap's seed: the same inputs and seed give the same interval. */
  seed?: string;
  /** What a paired verdict's columns are, for its "too few" reason: "addresses measured in both" by default. */
  columns?: string;
}

/** Changes within ± this percent are `no change` unless said otherwise (`--noise-floor`). */
export const DEFAULT_NOISE_FLOOR_PCT = 2;

const DEFAULTS = { noiseFloorPct: DEFAULT_NOISE_FLOOR_PCT, minSamples: 10, resamples: 2000, seed: 'electrum-bench verdict', columns: 'addresses measured in both' };

/** The q-quantile of ascending numbers, never empty here. */
const quantileSorted = (xs: Float64Array | number[], q: number): number => percentile(xs, q)!;

const medianSorted = (xs: Float64Array | number[]): number => quantileSorted(xs, 0.5);
const medianOf = (xs: number[]): number => medianOfUnsorted(xs)!;

/** The change in percent that a log ratio stands for. */
const pct = (logRatio: number): number => (Math.exp(logRatio) - 1) * 100;

/**
 * The verdict from the bootstrap's draws of the log ratio. `clusters`: how many independent units
 * were resampled at the coarsest level (passes); a percentile interval from few of them is too
 * narrow, so its distance from the estimate is widened by sqrt(k / (k − 1)), the usual correction
 * of a bootstrap variance from k units (1.41 for 2 passes, 1.06 for 9).
 */
function judge(test: string, n: number, point: number, draws: Float64Array, o: Required<VerdictOptions>, clusters = Infinity): Verdict {
  draws.sort();
  const at = (q: number) => quantileSorted(draws, q);
  const widen = Number.isFinite(clusters) && clusters > 1 ? Math.sqrt(clusters / (clusters - 1)) : 1;
  const lo = point - (point - at(0.025)) * widen;
  const hi = point + (at(0.975) - point) * widen;
  // The p-value from the same widened spread, so p < 0.05 and an interval excluding zero agree.
  let below = 0;
  let above = 0;
  for (const raw of draws) {
    const d = point + (raw - point) * widen;
    if (d <= 0) below++;
    if (d >= 0) above++;
  }
  const p = Math.min(1, Math.max(1 / draws.length, (2 * Math.min(below, above)) / draws.length));
  const changePct = pct(point);
  const beyondFloor = Math.abs(changePct) > o.noiseFloorPct;
  const verdict: VerdictWord = lo > 0 && beyondFloor ? 'slower' : hi < 0 && beyondFloor ? 'faster' : 'no change';
  return { test, n, changePct, ciPct: [pct(lo), pct(hi)], p, verdict };
}

function noVerdict(test: string, n: number, why: string): Verdict {
  return { test, n, changePct: null, ciPct: null, p: null, verdict: null, why };
}

function tooFew(test: string, n: number, o: Required<VerdictOptions>, what: string): Verdict {
  return noVerdict(test, n, `${n} ${what}; a verdict needs at least ${o.minSamples}`);
}

/**
 * B against A where column i of `a` and of `b` measured the same thing (one address, in each pass
 * of each run: `a[pass][i]`, NaN where that pass has no value): the median over addresses of the log
 * ratio of their per-address medians, with an interval from a bootstrap that resamples the addresses
 * (paired: the same draw on both sides) and, on each side, its passes. Resampling passes is what
 * lets the interval carry the drift of a machine over time: identical bench runs of one lab server
 * moved every address alike by up to 20 % (docs/findings/2026-11-24-verdicts.md), which addresses
 * alone, all measured at once, would call a change.
 */
export function pairedVerdict(a: number[][], b: number[][], options: VerdictOptions = {}): Verdict {
  const o = { ...DEFAULTS, ...options };
  const test = 'paired bootstrap';
  const width = Math.min(a[0]?.length ?? 0, b[0]?.length ?? 0);
  const seen = (runs: number[][], i: number) => runs.some((pass) => pass[i] > 0);
  const columns = Array.from({ length: width }, (_, i) => i).filter((i) => seen(a, i) && seen(b, i));
  if (columns.length < o.minSamples) return tooFew(test, columns.length, o, o.columns);
  if (a.length < 2 || b.length < 2) {
    return noVerdict(test, columns.length, `${Math.min(a.length, b.length)} pass in a run; a verdict needs at least 2 in each, to tell a change from the machine's drift over time`);
  }
  const medianAt = (runs: number[][], passes: number[], i: number, scratch: number[]): number => {
    scratch.length = 0;
    for (const p of passes) {
      const v = runs[p][i];
      if (v > 0) scratch.push(v);
    }
    if (scratch.length === 0) return NaN;
    scratch.sort((x, y) => x - y);
    return medianSorted(scratch);
  };
  const allA = a.map((_, p) => p);
  const allB = b.map((_, p) => p);
  const scratch: number[] = [];
  const logRatio = (passesA: number[], passesB: number[], i: number) => Math.log(medianAt(b, passesB, i, scratch) / medianAt(a, passesA, i, scratch));
  const point = medianOf(columns.map((i) => logRatio(allA, allB, i)).filter((x) => !Number.isNaN(x)));
  const rand = seededRandom(o.seed);
  const draws = new Float64Array(o.resamples);
  const logs: number[] = [];
  const pick = (n: number) => Math.floor(rand() * n);
  for (let r = 0; r < o.resamples; r++) {
    const passesA = allA.map(() => pick(allA.length));
    const passesB = allB.map(() => pick(allB.length));
    logs.length = 0;
    for (let k = 0; k < columns.length; k++) {
      const x = logRatio(passesA, passesB, columns[pick(columns.length)]);
      if (!Number.isNaN(x)) logs.push(x);
    }
    draws[r] = logs.length ? medianOf(logs) : 0;
  }
  return judge(test, columns.length, point, draws, o, Math.min(a.length, b.length));
}

/**
 * B against A from two independent samples (one run's interval p99s, wallet sync times): the log
 * ratio of their medians and its bootstrap interval, each side resampled on its own.
 */
export function unpairedVerdict(a: number[], b: number[], options: VerdictOptions = {}): Verdict {
  const o = { ...DEFAULTS, ...options };
  const xa = a.filter((v) => v > 0);
  const xb = b.filter((v) => v > 0);
  const test = 'bootstrap';
  const n = Math.min(xa.length, xb.length);
  if (n < o.minSamples) return tooFew(test, n, o, 'samples on the smaller side');
  const rand = seededRandom(o.seed);
  const draws = new Float64Array(o.resamples);
  const sa = new Float64Array(xa.length);
  const sb = new Float64Array(xb.length);
  for (let r = 0; r < o.resamples; r++) {
    for (let i = 0; i < xa.length; i++) sa[i] = xa[Math.floor(rand() * xa.length)];
    for (let i = 0; i < xb.length; i++) sb[i] = xb[Math.floor(rand() * xb.length)];
    draws[r] = Math.log(medianSorted(sb.sort()) / medianSorted(sa.sort()));
  }
  return judge(test, n, Math.log(medianOf(xb) / medianOf(xa)), draws, o);
}

/** "+12.3 %" / "−4.0 %", as the compare table prints a change. */
function changeText(changePct: number): string {
  return `${signed(changePct)} %`;
}

const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;

/** The verdict as one cell: "slower +12.3 % [+8.1, +16.0], paired bootstrap n=51 p=0.001". */
export function verdictText(v: Verdict): string {
  if (v.verdict === null || v.changePct === null || v.ciPct === null) return `no verdict: ${v.why}`;
  const [lo, hi] = v.ciPct;
  return `${v.verdict === 'no change' ? '~' : v.verdict} ${changeText(v.changePct)} [${signed(lo)}, ${signed(hi)}], ${v.test} n=${v.n} p=${v.p!.toFixed(3)}`;
}
