/** `bench --cold`'s plan: which counted passes are cold, where the runner restarts, and the plan it refuses. */
import { coldPlanProblem, isColdPass, passSegments } from '../../../src/bench/cold-passes';

describe('cold passes', () => {
  test('the counted passes alternate cold and warm, cold first; warm-up passes are never cold', () => {
    expect([0, 1, 2, 3, 4, 5].map((p) => isColdPass(p, 1))).toEqual([false, true, false, true, false, true]);
    expect([0, 1, 2, 3].map((p) => isColdPass(p, 0))).toEqual([true, false, true, false]);
    expect([0, 1, 2, 3, 4].map((p) => isColdPass(p, 2))).toEqual([false, false, true, false, true]);
  });

  test('segments: the warm-up, then each cold pass with its warm pass, covering every pass once in order', () => {
    expect(passSegments(6, 1, true)).toEqual([
      { first: 0, count: 1, cold: false },
      { first: 1, count: 2, cold: true },
      { first: 3, count: 2, cold: true },
      { first: 5, count: 1, cold: true },
    ]);
    expect(passSegments(4, 0, true)).toEqual([
      { first: 0, count: 2, cold: true },
      { first: 2, count: 2, cold: true },
    ]);
    for (const [passes, warmup] of [[2, 0], [7, 3], [10, 1], [3, 1]]) {
      const segments = passSegments(passes, warmup, true);
      const covered = segments.flatMap((s) => Array.from({ length: s.count }, (_, i) => s.first + i));
      expect(covered).toEqual(Array.from({ length: passes }, (_, i) => i));
      // A restart comes exactly before each cold pass.
      expect(segments.filter((s) => s.cold).map((s) => s.first)).toEqual(covered.filter((p) => isColdPass(p, warmup)));
    }
  });

  test('without --cold the whole plan is one segment, with no restart', () => {
    expect(passSegments(10, 1, false)).toEqual([{ first: 0, count: 10, cold: false }]);
  });

  test('a cold run needs a warm counted pass beside a cold one', () => {
    expect(coldPlanProblem(2, 1)).toMatch(/--cold .* at least 2 counted passes.*--passes 2 --warmup 1/);
    expect(coldPlanProblem(3, 1)).toBeNull();
    expect(coldPlanProblem(2, 0)).toBeNull();
  });
});
