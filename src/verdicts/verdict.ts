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
 * resampling addresses and each run's passes; the turns of an interleaved load run are paired by round (a sign test).
 * Samples with no pairing (two load runs' seconds, wallet syncs) are bootstrapped on the ratio of the two medians. The bootstrap is seeded, so a comparison prints the same interval
 * every time; its two-sided p-value is the share of resamples on the far side of zero, doubled.
 */
import { seededRandom } from '../core/random';
import { medianOfUnsorted, percentile } from '../core/quantiles';

export type VerdictWord = 'faster' | 'slower' | 'no change';

export interface Verdict {
  /** How the interval was found, for the table: "paired bootstrap", "bootstrap" or "sign test". */
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
  return { test, n, ...called(point, lo, hi, o), p };
}

/** The change, its interval and the word for them: a change is called only beyond the noise floor, its whole interval on one side of zero. */
function called(point: number, lo: number, hi: number, o: Required<VerdictOptions>): Pick<Verdict, 'changePct' | 'ciPct' | 'verdict'> {
  const changePct = pct(point);
  const beyondFloor = Math.abs(changePct) > o.noiseFloorPct;
  const verdict: VerdictWord = lo > 0 && beyondFloor ? 'slower' : hi < 0 && beyondFloor ? 'faster' : 'no change';
  return { changePct, ciPct: [pct(lo), pct(hi)], verdict };
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

/**
 * B against A where `a[i]` and `b[i]` were measured side by side (one round of an interleaved load
 * run: A's turn and B's next to it, the machine alike for both): the median over pairs of the log
 * ratio b[i]/a[i], with the sign test's interval and p-value. A pair missing either side (a turn
 * with no answer: NaN or ≤ 0) is left out.
 *
 * Not a bootstrap: over the 10–20 pairs a run has, a percentile bootstrap of the median called 5–8 %
 * of synthetic A/A runs a change (mostly `faster`: the nearest-rank median of an even count leans
 * low), at no more power than this. The interval between the k-th smallest and k-th largest log
 * ratio holds the median pair's change with probability ≥ 95 % whatever the changes' distribution
 * (k from the binomial distribution of n fair coins: the sign test), so an A/A run is called a change
 * at most 5 % of the time (docs/findings/2026-11-26-interleaved-load.md).
 */
export function pairsVerdict(a: readonly number[], b: readonly number[], options: VerdictOptions = {}): Verdict {
  const o = { ...DEFAULTS, columns: 'pairs', ...options };
  const test = 'sign test';
  const logs: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] > 0 && b[i] > 0) logs.push(Math.log(b[i] / a[i]));
  const n = logs.length;
  if (n < o.minSamples) return tooFew(test, n, o, o.columns);
  logs.sort((x, y) => x - y);
  // The largest k whose tails P(Bin(n, ½) ≤ k − 1) on each side stay within 2.5 %.
  let k = 0;
  while (binomialAtMost(k, n) <= 0.025) k++;
  const lo = logs[k - 1];
  const hi = logs[n - k];
  // Two-sided sign test of "no change": pairs with no change at all (equal percentiles) say nothing.
  const above = logs.filter((x) => x > 0).length;
  const below = logs.filter((x) => x < 0).length;
  const p = Math.min(1, 2 * binomialAtMost(Math.min(above, below), above + below));
  return { test, n, ...called(medianSorted(logs), lo, hi, o), p };
}

/** One call made in B (a first touch, in pass `pass`) and again in A's passes (`a`: pass → value, those that answered it). */
export interface CallInPasses {
  pass: number;
  b: number;
  a: ReadonlyMap<number, number>;
}

/**
 * B against A where each call of B was made again in some of A's passes (a first touch after a
 * restart, and the same call in every warm pass): the log ratio of the totals, Σb over the sum of
 * each call's mean in A, with an interval from a bootstrap that resamples B's passes, A's passes
 * and, in each drawn pass of B, its calls, as pairedVerdict resamples passes and addresses; a call
 * none of whose drawn A passes answered it sits that draw out. Totals, not the median call: a
 * restart's cost lands on the few calls that read what the restart dropped, which a median over
 * every call passes by (the lab, 2026-11-29: ElectrumX's first touches 1.42–1.54 times the same
 * calls warm in total in five runs, its median pair +2 % to +41 %). Both sides' passes are drawn
 * because a pass is one moment of the machine for all its calls: with them fixed, one slow warm
 * pass called romanz's electrs 26 % faster cold, its interval far from zero.
 */
export function passTotalsVerdict(calls: readonly CallInPasses[], options: VerdictOptions = {}): Verdict {
  const o = { ...DEFAULTS, columns: 'calls', ...options };
  const test = 'bootstrap of totals over passes';
  const aPasses = [...new Set(calls.flatMap((c) => [...c.a.keys()]))].sort((x, y) => x - y);
  // Each call's A values by the index of their pass in aPasses (NaN: not answered there).
  const rows = calls
    .filter((c) => c.b > 0)
    .map((c) => ({ pass: c.pass, b: c.b, a: Float64Array.from(aPasses, (p) => ((c.a.get(p) ?? 0) > 0 ? c.a.get(p)! : NaN)) }))
    .filter((c) => c.a.some((v) => !Number.isNaN(v)));
  if (rows.length < o.minSamples) return tooFew(test, rows.length, o, o.columns);
  const byPass = new Map<number, typeof rows>();
  for (const c of rows) byPass.set(c.pass, [...(byPass.get(c.pass) ?? []), c]);
  const bPasses = [...byPass.values()];
  if (bPasses.length < 2 || aPasses.length < 2) {
    return noVerdict(test, rows.length, `${Math.min(bPasses.length, aPasses.length)} pass on one side; a verdict needs at least 2 on each, to tell a change from one moment of the machine`);
  }
  // A call's mean over A's passes drawn `times[j]` times each (a pass drawn twice counts twice); NaN when none of them answered it.
  // (`v !== v` is NaN's test: no global looked up in the loop, which jest's sandbox makes cost ~0.5 µs, src/core/random.ts.)
  const meanOf = (a: Float64Array, times: Float64Array): number => {
    let sum = 0;
    let n = 0;
    for (let j = 0; j < a.length; j++) {
      if (times[j] === 0 || a[j] !== a[j]) continue;
      sum += times[j] * a[j];
      n += times[j];
    }
    return n ? sum / n : NaN;
  };
  const once = new Float64Array(aPasses.length).fill(1);
  let totalA = 0;
  let totalB = 0;
  for (const c of rows) {
    totalA += meanOf(c.a, once);
    totalB += c.b;
  }
  const rand = seededRandom(o.seed);
  // `| 0`, not Math.floor: the global's lookup in jest's sandbox cost more than the draw (src/core/random.ts).
  const pick = (n: number) => (rand() * n) | 0;
  const draws = new Float64Array(o.resamples);
  const times = new Float64Array(aPasses.length);
  for (let r = 0; r < o.resamples; r++) {
    times.fill(0);
    for (let k = 0; k < aPasses.length; k++) times[pick(aPasses.length)]++;
    let sa = 0;
    let sb = 0;
    for (let g = 0; g < bPasses.length; g++) {
      const pass = bPasses[pick(bPasses.length)];
      for (let k = 0; k < pass.length; k++) {
        const c = pass[pick(pass.length)];
        const a = meanOf(c.a, times);
        if (a !== a) continue;
        sa += a;
        sb += c.b;
      }
    }
    draws[r] = sa > 0 && sb > 0 ? Math.log(sb / sa) : 0;
  }
  return judge(test, rows.length, Math.log(totalB / totalA), draws, o, Math.min(bPasses.length, aPasses.length));
}

/** P(X ≤ k) for X ~ Binomial(n, ½). */
function binomialAtMost(k: number, n: number): number {
  let sum = 0;
  let term = Math.pow(0.5, n); // P(X = 0)
  for (let i = 0; i <= k && i <= n; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
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
