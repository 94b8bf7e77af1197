/**
 * The statistics of a verdict (src/verdicts/verdict.ts), on simulated runs: no change where only
 * noise differs (and at most 5 % of A/A pairs called otherwise), slower or faster with an interval
 * that excludes zero where one side really moved, and no verdict at all on too few samples.
 */
import { pairedVerdict, pairsVerdict, unpairedVerdict, verdictText } from '../../../src/verdicts/verdict';
import { seededRandom } from '../../../src/core/random';
import { addresses, gaussian, simulatedRun as run } from '../../support/simulated-latency';
import { inWorker } from '../../support/in-worker';

const SIMULATION = 'test/support/simulated-latency.ts';

test('A/A: noise and drift alone are called a change in at most 5 % of 200 pairs at the default floor', async () => {
  // Two threads of a hundred pairs each, outside jest's sandbox: a minute of bootstrap in it.
  const verdicts = (await Promise.all([inWorker<Array<string | null>>(SIMULATION, 'aaVerdicts', 0, 100), inWorker<Array<string | null>>(SIMULATION, 'aaVerdicts', 100, 200)])).flat();
  expect(verdicts).toHaveLength(200);
  expect(verdicts.filter((v) => v === null)).toEqual([]);
  const called = verdicts.filter((v) => v !== 'no change').length;
  expect(called / 200).toBeLessThanOrEqual(0.05);
});

test('drift the passes do not show is called: resampling passes is what holds A/A down', () => {
  // Without drift between passes, but B's whole run 10 % slower: the same interval calls it.
  const truth = addresses('shift');
  const v = pairedVerdict(run(truth, 'a', 1, { drift: 0 }), run(truth, 'b', 1.1, { drift: 0 }), {});
  expect(v.verdict).toBe('slower');
});

test('B 30 % slower on every address: slower, its interval above zero and around +30 %', () => {
  const truth = addresses('slow');
  const v = pairedVerdict(run(truth, 'a'), run(truth, 'b', 1.3), {});
  expect(v.verdict).toBe('slower');
  expect(v.ciPct![0]).toBeGreaterThan(0);
  expect(v.changePct!).toBeGreaterThan(20);
  expect(v.changePct!).toBeLessThan(40);
  expect(v.ciPct![0]).toBeLessThanOrEqual(v.changePct!);
  expect(v.changePct!).toBeLessThanOrEqual(v.ciPct![1]);
  expect(v.p!).toBeLessThan(0.01);
  expect(v.test).toBe('paired bootstrap');
  expect(v.n).toBe(51);
  expect(verdictText(v)).toMatch(/^slower \+\d+\.\d % \[\+\d+\.\d, \+\d+\.\d\], paired bootstrap n=51 p=0\.\d{3}$/);
});

test('B faster: faster, its interval below zero', () => {
  const truth = addresses('fast');
  const v = pairedVerdict(run(truth, 'a'), run(truth, 'b', 0.7), {});
  expect(v.verdict).toBe('faster');
  expect(v.ciPct![1]).toBeLessThan(0);
});

test('a real change smaller than the noise floor is no change; a lower floor calls it', () => {
  const truth = addresses('small');
  // Little noise, so the interval is narrow and excludes zero: only the floor keeps it out.
  const a = run(truth, 'a', 1, { drift: 0.002, sigma: 0.005 });
  const b = run(truth, 'b', 1.015, { drift: 0.002, sigma: 0.005 });
  const atDefault = pairedVerdict(a, b, {});
  expect(atDefault.ciPct![0]).toBeGreaterThan(0);
  expect(atDefault.verdict).toBe('no change');
  expect(pairedVerdict(a, b, { noiseFloorPct: 1 }).verdict).toBe('slower');
});

test('too few addresses or passes: no verdict, and why', () => {
  const v = pairedVerdict([[1, 2, 3], [1, 2, 3]], [[2, 4, 6], [2, 4, 6]], {});
  expect(v.verdict).toBeNull();
  expect(v.why).toBe('3 addresses measured in both; a verdict needs at least 10');
  expect(verdictText(v)).toBe('no verdict: 3 addresses measured in both; a verdict needs at least 10');
  const truth = addresses('one pass');
  const onePass = pairedVerdict(run(truth, 'a', 1, { passes: 1 }), run(truth, 'b', 2, { passes: 9 }), {});
  expect(onePass.verdict).toBeNull();
  expect(onePass.why).toMatch(/^1 pass in a run; a verdict needs at least 2 in each/);
});

test('an address a run never answered is left out, not taken for a change', () => {
  const truth = addresses('gaps');
  const a = run(truth, 'a');
  const b = run(truth, 'b');
  for (const pass of b) pass[0] = NaN; // address 0 failed in every pass of B
  const v = pairedVerdict(a, b, {});
  expect(v.n).toBe(50);
  expect(v.verdict).toBe('no change');
});

test('the same inputs and seed give the same interval', () => {
  const truth = addresses('same');
  const a = run(truth, 'a');
  const b = run(truth, 'b', 1.1);
  expect(pairedVerdict(a, b, { seed: 's' })).toEqual(pairedVerdict(a, b, { seed: 's' }));
});

test('unpaired samples: same distribution is no change, half again as slow is slower', () => {
  const truth = Array.from({ length: 60 }, () => 1);
  const sample = (seed: string, factor: number) => run(truth, seed, factor, { passes: 1, drift: 0, sigma: 0.2 })[0];
  const a = sample('ua', 1);
  expect(unpairedVerdict(a, sample('ub', 1), {}).verdict).toBe('no change');
  const slower = unpairedVerdict(a, sample('uc', 1.5), {});
  expect(slower.verdict).toBe('slower');
  expect(slower.ciPct![0]).toBeGreaterThan(0);
  expect(slower.test).toBe('bootstrap');
});

describe('the turns of an interleaved load run, paired by round', () => {
  /**
   * `rounds` rounds of one turn per server: both turns of a round share the machine's state then (a
   * random walk over the run, `drift` per round, and a shared jolt, `jolt`), each turn its own
   * noise (`sigma`); B's turns are `factor` times A's.
   */
  function rounds(seed: string, factor = 1, { n = 12, drift = 0.05, jolt = 0.1, sigma = 0.06 } = {}): { a: number[]; b: number[] } {
    const rand = seededRandom(seed);
    let level = 0;
    const a: number[] = [];
    const b: number[] = [];
    for (let k = 0; k < n; k++) {
      level += drift * gaussian(rand);
      const now = 2 * Math.exp(level + jolt * gaussian(rand));
      a.push(now * Math.exp(sigma * gaussian(rand)));
      b.push(now * factor * Math.exp(sigma * gaussian(rand)));
    }
    return { a, b };
  }

  test('a run against itself is ~, with no change at all', () => {
    const { a } = rounds('self');
    const v = pairsVerdict(a, a, {});
    expect(v.verdict).toBe('no change');
    expect(v.changePct).toBe(0);
    expect(v.ciPct).toEqual([0, 0]);
    expect(verdictText(v)).toBe('~ +0.0 % [+0.0, +0.0], sign test n=12 p=1.000');
  });

  test('A/A: drift shared by the turns of a round and noise of their own are called a change in at most 5 % of 200 runs', () => {
    let called = 0;
    for (let k = 0; k < 200; k++) {
      const { a, b } = rounds(`aa ${k}`);
      const v = pairsVerdict(a, b);
      expect(v.verdict).not.toBeNull();
      if (v.verdict !== 'no change') called++;
    }
    expect(called / 200).toBeLessThanOrEqual(0.05);
  });

  test('B 20 % slower in every round: slower, its interval above zero and around +20 %', () => {
    const { a, b } = rounds('slow', 1.2);
    const v = pairsVerdict(a, b, {});
    expect(v.verdict).toBe('slower');
    expect(v.ciPct![0]).toBeGreaterThan(0);
    expect(v.changePct!).toBeGreaterThan(10);
    expect(v.changePct!).toBeLessThan(30);
    expect(v.n).toBe(12);
    expect(verdictText(v)).toMatch(/^slower \+\d+\.\d % \[\+\d+\.\d, \+\d+\.\d\], sign test n=12 p=0\.\d{3}$/);
    // Every pair slower: the sign test's p is that of 12 heads in 12 fair tosses, either way; its
    // interval runs from the 3rd smallest change to the 3rd largest (P(Bin(12, ½) ≤ 2) = 1.9 %).
    const every = pairsVerdict(a, a.map((x, k) => x * (1.1 + 0.01 * k)));
    expect(every.p).toBeCloseTo(2 / 4096, 9);
    expect(every.ciPct![0]).toBeCloseTo(12, 9);
    expect(every.ciPct![1]).toBeCloseTo(19, 9);
    expect(pairsVerdict(b, a, {}).verdict).toBe('faster');
  });

  test('drift that moves both turns of a round alike does not hide a change: paired, 5 % slower is called; unpaired, the drift swamps it', () => {
    // A steep trend over the run (+40 % from the first round to the last), B 5 % slower in each round.
    const a = Array.from({ length: 12 }, (_, k) => 1 + 0.035 * k);
    const b = a.map((x, k) => x * 1.05 * (k % 2 ? 1.005 : 0.995));
    const paired = pairsVerdict(a, b);
    expect(paired.verdict).toBe('slower');
    expect(paired.ciPct![0]).toBeGreaterThan(0);
    expect(unpairedVerdict(a, b, {}).verdict).toBe('no change');
  });

  test('too few pairs: no verdict, and why; a turn without an answer is no pair', () => {
    const { a, b } = rounds('few', 1, { n: 9 });
    const v = pairsVerdict(a, b, { columns: 'pairs of turns' });
    expect(v.verdict).toBeNull();
    expect(v.why).toBe('9 pairs of turns; a verdict needs at least 10');
    const gaps = rounds('gaps', 1, { n: 12 });
    gaps.b[3] = NaN;
    gaps.a[5] = 0;
    expect(pairsVerdict(gaps.a, gaps.b, {}).n).toBe(10);
  });
});
