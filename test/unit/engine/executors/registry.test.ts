/**
 * Every load executor describes itself and puts its shards' shares back together, so a new one is
 * its file and one registry line: nothing in the report or in load merge has to learn it.
 */
import { executorFor, isLoadModelKind, type LoadModel } from '../../../../src/engine/executors/registry';
import { describeModel } from '../../../../src/report/load-tables';

const MODELS: LoadModel[] = [
  { kind: 'rate', rate: 400 },
  { kind: 'stages', startRate: 10, stages: [{ durationMs: 5000, target: 300 }, { durationMs: 5000, target: 60 }] },
  { kind: 'vus', vus: 9, thinkTimeMs: 0 },
  { kind: 'vus-stages', startVus: 3, stages: [{ durationMs: 5000, target: 12 }], thinkTimeMs: 50 },
  { kind: 'per-vu-iterations', vus: 7, iterations: 20, thinkTimeMs: 0 },
  { kind: 'shared-iterations', vus: 6, iterations: 100, thinkTimeMs: 10 },
  { kind: 'hold', sessions: 500, concurrency: 16 },
];

test.each(MODELS.map((m) => [m.kind, m] as const))('%s: described as runs stored before described it, and its shards merge back into the whole', (_, model) => {
  const executor = executorFor(model);
  // Runs stored before schema 10 are described by the report's fallback; the two must read alike.
  expect(executor.describe(model)).toBe(describeModel(model));
  const shares = [1, 2, 3].map((index) => executor.shareOf(model, { index, count: 3 }));
  expect(executor.merge(shares)).toEqual(model);
  expect(executor.mismatch?.(model, shares[1])).toBeUndefined();
});

test('a stored model of a kind no executor has is not taken for one', () => {
  expect(isLoadModelKind('rate')).toBe(true);
  expect(isLoadModelKind('toString')).toBe(false);
  expect(isLoadModelKind('constant-arrival-rate')).toBe(false);
});

test('shards of different ramps or think times are not one test, and say why', () => {
  const a: LoadModel = { kind: 'vus-stages', startVus: 3, stages: [{ durationMs: 5000, target: 12 }], thinkTimeMs: 50 };
  const ramp = executorFor(a);
  expect(ramp.mismatch?.(a, { ...a, stages: [{ durationMs: 6000, target: 12 }] })).toBe('stage durations 6s instead of 5s');
  expect(ramp.mismatch?.(a, { ...a, thinkTimeMs: 0 })).toBe('think time 0 ms instead of 50 ms');
});
