import { collateralOf, type OrdinaryUnit } from '../../../../src/engine/abuse/collateral';

const at = (dueMs: number, latencyMs: number, status = 'ok'): OrdinaryUnit => ({ dueMs, latencyMs, status });
const abuse = { startMs: 10_000, endMs: 20_000 };

it('splits the units into before, during and after by when each was due', () => {
  const c = collateralOf([at(1000, 10), at(9999, 12), at(10_000, 500), at(15_000, 0, 'timeout'), at(20_000, 11), at(25_000, 9)], abuse);
  expect([c.before.units, c.during.units, c.after.units]).toEqual([2, 2, 2]);
  expect(c.during.errors).toEqual({ timeout: 1 });
  expect(c.during.ok).toBe(1);
  expect(c.answeredDuring).toBe(true);
  expect(c.answeredAfter).toBe(true);
  expect(c.recoveredAfterS).toBe(0);
});

it('recovery is when every later unit is ok and within twice the before p99', () => {
  const c = collateralOf([at(1000, 10), at(2000, 10), at(21_000, 50), at(22_000, 0, 'disconnect'), at(23_500, 15), at(24_000, 12)], abuse);
  expect(c.recoveredAfterS).toBe(3.5);
});

it('a server that never answered again is not recovered, and did not answer after', () => {
  const c = collateralOf([at(1000, 10), at(12_000, 0, 'refused'), at(21_000, 0, 'refused')], abuse);
  expect(c.answeredDuring).toBe(false);
  expect(c.answeredAfter).toBe(false);
  expect(c.recoveredAfterS).toBeNull();
  expect(c.after.p50Ms).toBeNull();
});
