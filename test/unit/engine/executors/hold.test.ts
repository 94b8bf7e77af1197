/**
 * The hold executor on its own, over a small in-memory iteration (no server: what is tested is
 * the pacing): it fills exactly the sessions asked for, never more than its concurrency at once,
 * replaces units that ended badly up to its failure limit, and a stop ends it at once.
 */
import { hold } from '../../../../src/engine/executors/hold';
import type { HoldFill } from '../../../../src/engine/executors/hold';
import type { IterationContext } from '../../../../src/engine/iteration';
import { RunClock } from '../../../../src/engine/run-clock';
import { heldTimers } from '../../../support/held-timers';

/** Units still running when a test ends (a stop does not wait for them): cleared after it, so none outlives it. */
const unitTimers = heldTimers();
afterEach(() => unitTimers.clear());

/** Units that end after `ms`, well unless `fails(k)` says the k-th fails. */
function iteration(ms: number, fails: (k: number) => boolean = () => false) {
  const seen = { started: 0, running: 0, maxRunning: 0 };
  const ctx: IterationContext = {
    clock: new RunClock(process.hrtime.bigint()),
    onProgress() {},
    batch: () => ({
      size: 0,
      oldestNs: Infinity,
      add(_intendedNs, whenDone) {
        const k = seen.started++;
        seen.running++;
        seen.maxRunning = Math.max(seen.maxRunning, seen.running);
        unitTimers.later(() => {
          seen.running--;
          whenDone?.(!fails(k));
        }, ms);
        return true;
      },
      flush() {},
    }),
  };
  return { ctx, seen };
}

test('validate names every problem at once', () => {
  expect(hold.validate({ kind: 'hold', sessions: 0, concurrency: 1.5 })).toEqual(['--hold must be an integer > 0, got 0', '--hold-concurrency must be an integer > 0, got 1.5']);
  expect(hold.validate({ kind: 'hold', sessions: 5, concurrency: 2 })).toEqual([]);
});

test('fills exactly the sessions asked for, at most `concurrency` at once', async () => {
  const { ctx, seen } = iteration(5);
  const fill = hold.create(ctx, { kind: 'hold', sessions: 25, concurrency: 4 }, 0) as HoldFill;
  await fill.run();
  expect(fill.held).toBe(25);
  expect(fill.failed).toBe(0);
  expect(seen.started).toBe(25);
  expect(seen.maxRunning).toBe(4);
});

test('units that end badly are replaced, until more than the failure limit have', async () => {
  const { ctx, seen } = iteration(1, (k) => k % 2 === 1);
  const fill = hold.create(ctx, { kind: 'hold', sessions: 6, concurrency: 1 }, 0) as HoldFill;
  await fill.run();
  expect(fill.held).toBe(6);
  expect(fill.failed).toBe(5);
  expect(seen.started).toBe(11);

  const refused = iteration(1, () => true);
  const none = hold.create(refused.ctx, { kind: 'hold', sessions: 50, concurrency: 3 }, 0) as HoldFill;
  await none.run();
  expect(none.held).toBe(0);
  // Stops once more than max(10, 50/10) failed; fillers already running end theirs.
  expect(none.failed).toBeGreaterThan(10);
  expect(none.failed).toBeLessThanOrEqual(13);
});

test('a stop ends the fill at once, whatever is still running', async () => {
  const { ctx } = iteration(3000);
  const fill = hold.create(ctx, { kind: 'hold', sessions: 5, concurrency: 5 }, 0) as HoldFill;
  const t0 = Date.now();
  setTimeout(() => fill.stop(), 50);
  await fill.run();
  expect(Date.now() - t0).toBeLessThan(1000);
  expect(fill.held).toBe(0);
});
