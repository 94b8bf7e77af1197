/**
 * A --cold run's verdict per server: first touches against the same calls warm, their totals
 * compared over the cold passes, the warm passes and the touches. Over many synthetic servers with
 * no cold cost, a change is called no more often than a 95 % interval promises, and rarely when a
 * warm pass falls on a slow moment of the machine; a cost that lands on a few first touches is
 * found in their total.
 */
import { coldVerdicts, type NamedFirstTouch } from '../../../src/verdicts/cold';
import { seededRandom } from '../../../src/core/random';

/** A latency around `ms`, right-skewed as a server's are (log-normal, σ 0.3). */
function latencyNs(rand: () => number, ms: number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  return Math.round(ms * 1e6 * Math.exp(0.3 * normal));
}

/**
 * `servers` synthetic servers of `touches` first touches each, as a run of cold passes 1 and 3 and
 * warm passes 2 and 4 makes them: a touch costs `coldCostMs(i)` more than the same call warm, and
 * each pass runs on a moment of the machine ±10 % (`slowWarm`: warm pass 2 a third slower besides).
 */
function firstTouches(seed: string, servers: number, touches: number, coldCostMs: (i: number) => number, slowWarm = false): NamedFirstTouch[] {
  const rand = seededRandom(seed);
  const out: NamedFirstTouch[] = [];
  for (let s = 0; s < servers; s++) {
    const moment = new Map([1, 2, 3, 4].map((p) => [p, (0.9 + 0.2 * rand()) * (slowWarm && p === 2 ? 1.33 : 1)]));
    for (let i = 0; i < touches; i++) {
      const pass = i % 2 === 0 ? 1 : 3;
      // Each address its own size: calls of one address alike, addresses far apart.
      const ms = 0.2 + 5 * rand();
      out.push({
        server: `s${s}`,
        pass,
        coldNs: latencyNs(rand, ms * moment.get(pass)!) + Math.round(coldCostMs(i) * 1e6),
        warm: new Map([2, 4].map((p) => [p, latencyNs(rand, ms * moment.get(p)!)])),
      });
    }
  }
  return out;
}

const called = (touches: NamedFirstTouch[]) => {
  const words = coldVerdicts(touches).map((v) => v.verdict.verdict);
  return { slower: words.filter((w) => w === 'slower').length, faster: words.filter((w) => w === 'faster').length, servers: words.length };
};

test('no cold cost: at most 5 % of servers called slower or faster', () => {
  const c = called(firstTouches('cold a/a', 400, 100, () => 0));
  expect(c.servers).toBe(400);
  expect(c.slower + c.faster).toBeLessThanOrEqual(20);
});

test('no cold cost, one of two warm passes on a slow moment of the machine: at most 10 % called faster', () => {
  // Two warm passes are two moments to resample: the interval is rough, not the 5 % it is with more.
  const c = called(firstTouches('cold slow warm', 400, 100, () => 0, true));
  expect(c.faster).toBeLessThanOrEqual(40);
});

test("a restart costing 7.5 ms at one first touch in five (half again in all, as ElectrumX's on the lab): called slower for most servers, never faster", () => {
  const c = called(firstTouches('cold few', 400, 100, (i) => (i % 5 === 0 ? 7.5 : 0)));
  expect(c.slower).toBeGreaterThanOrEqual(300);
  expect(c.faster).toBe(0);
});

test('one verdict per server, in the order the touches first name them, over its own touches and sums', () => {
  const touch = (server: string, i: number, cold: number, warm: [number, number]) => ({ server, pass: 1 + 2 * (i % 2), coldNs: cold, warm: new Map([[2, warm[0]], [4, warm[1]]]) });
  const touches: NamedFirstTouch[] = [
    ...Array.from({ length: 12 }, (_, i) => touch('fulcrum', i, 2000 + i, [900 + i, 1100 + i])),
    ...Array.from({ length: 12 }, (_, i) => touch('electrumx', i, 1000 + i, [1000 + i, 1000 + i])),
  ];
  const v = coldVerdicts([...touches.filter((_, i) => i % 2 === 0), ...touches.filter((_, i) => i % 2 === 1)]);
  expect(v.map((x) => x.server)).toEqual(['fulcrum', 'electrumx']);
  // The warm side: each call's mean over the warm passes.
  expect([v[0].coldSumNs, v[0].warmSumNs]).toEqual([12 * 2000 + 66, 12 * 1000 + 66]);
  expect([v[0].verdict.verdict, v[0].verdict.n]).toEqual(['slower', 12]);
  expect([v[1].verdict.verdict, v[1].verdict.changePct]).toEqual(['no change', 0]);
});

test('one cold pass, or one warm pass: no verdict, since one moment of the machine cannot be told from a change', () => {
  const [oneCold] = coldVerdicts(Array.from({ length: 20 }, (_, i) => ({ server: 'fulcrum', pass: 1, coldNs: 2000 + i, warm: new Map([[2, 1000 + i], [4, 1000 + i]]) })));
  expect(oneCold.verdict.verdict).toBeNull();
  expect(oneCold.verdict.why).toMatch(/^1 pass on one side; a verdict needs at least 2 on each/);
  const [oneWarm] = coldVerdicts(Array.from({ length: 20 }, (_, i) => ({ server: 'fulcrum', pass: 1 + 2 * (i % 2), coldNs: 2000 + i, warm: new Map([[2, 1000 + i]]) })));
  expect(oneWarm.verdict.verdict).toBeNull();
});

test('too few first touches for a verdict: none, saying how many there were', () => {
  const [v] = coldVerdicts(Array.from({ length: 9 }, (_, i) => ({ server: 'electrs', pass: 1 + 2 * (i % 2), coldNs: 2, warm: new Map([[2, 1], [4, 1]]) })));
  expect(v.verdict.verdict).toBeNull();
  expect(v.verdict.why).toBe('9 first touches with a warm call; a verdict needs at least 10');
});
