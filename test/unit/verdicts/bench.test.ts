/**
 * Bench verdicts (src/verdicts/bench.ts) of an A/B run, `bench --baseline`: every other server of
 * the run judged against the recorded baseline, paired by address over simulated passes.
 */
import { seededRandom } from '../../../src/core/random';
import { benchAbComparison, type BenchRunLatency } from '../../../src/verdicts/bench';
import { regressions } from '../../../src/verdicts/comparison';
import { addresses, gaussian } from '../../support/simulated-latency';

describe('an A/B run (bench --baseline): every other server judged against the recorded baseline', () => {
  /** One run of servers measured interleaved: each pass's drift hits every server alike. */
  function abRun(factors: Record<string, number>, baseline?: string): BenchRunLatency {
    const truth = addresses('ab');
    const rand = seededRandom('ab passes');
    const passes: BenchRunLatency['passes'] = [];
    for (let pass = 1; pass <= 9; pass++) {
      const moved = Math.exp(0.08 * gaussian(rand));
      for (const [server, factor] of Object.entries(factors)) {
        for (const method of ['balance', 'history'] as const) {
          truth.forEach((t, i) => passes.push({ server, method, pass, scripthash: `h${i}`, latencyMs: t * factor * moved * Math.exp(0.1 * gaussian(rand)) }));
        }
      }
    }
    const points = passes.filter((p) => p.pass === 1).map((p) => ({ server: p.server, method: p.method, scripthash: p.scripthash, medianMs: p.latencyMs }));
    return { servers: Object.keys(factors), points, passes, ...(baseline ? { baseline } : {}) };
  }

  test('B 40 % slower than the baseline A: slower for every method, the interval excluding zero; C equal to A: no change', () => {
    const c = benchAbComparison(abRun({ a: 1, b: 1.4, c: 1 }, 'a'))!;
    const byServer = (s: string) => c.rows.filter((r) => r.server === s);
    expect(byServer('b vs a').map((r) => r.method)).toEqual(['balance', 'history']);
    for (const r of byServer('b vs a')) {
      expect(r.verdict.verdict).toBe('slower');
      expect(r.verdict.ciPct![0]).toBeGreaterThan(0);
      expect(r.verdict.changePct!).toBeGreaterThan(30);
    }
    for (const r of byServer('c vs a')) expect(r.verdict.verdict).toBe('no change');
  });

  test('B answers none of a method A answered: a row says so, and --fail-on-regression counts it', () => {
    const m = abRun({ a: 1, b: 1 }, 'a');
    const silent = (p: { server: string; method: string }) => p.server === 'b' && p.method === 'history';
    const run = { ...m, points: m.points.map((p) => (silent(p) ? { ...p, medianMs: null } : p)), passes: m.passes.filter((p) => !silent(p)) };
    const c = benchAbComparison(run)!;
    const row = c.rows.find((r) => r.method === 'history')!;
    expect(row).toMatchObject({ server: 'b vs a', matched: 0, unanswered: 'b', verdict: { verdict: null, why: 'no address was answered in B (every call failed)' } });
    expect(regressions(c, 1000).map((r) => r.what)).toEqual(['b vs a history']);
  });

  test('the other way round, and none without a recorded baseline', () => {
    const c = benchAbComparison(abRun({ a: 1, b: 1.4 }, 'b'))!;
    expect(c.rows.map((r) => [r.server, r.verdict.verdict])).toEqual([['a vs b', 'faster'], ['a vs b', 'faster']]);
    expect(benchAbComparison(abRun({ a: 1, b: 1.4 }))).toBeUndefined();
  });
});
