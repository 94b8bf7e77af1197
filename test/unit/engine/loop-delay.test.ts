/**
 * The loop-delay probe (src/engine/loop-delay.ts) reads the loop only while a request is in
 * flight: a blocked loop with an answer awaited is seen, with its length; the same block with
 * nothing in flight is not (nothing measured waited on it), and costs no timer.
 */
import { LoopDelay } from '../../../src/engine/loop-delay';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* held */
  }
}

test('a blocked loop while a request is in flight is read, its length included', async () => {
  const loop = new LoopDelay();
  loop.opened();
  await pause(20); // ticks of an idle loop: ~1 ms each
  blockLoop(40);
  await pause(5);
  const secondUs = loop.closeSecond();
  expect(secondUs).toBeGreaterThanOrEqual(38_000); // Date.now() counts whole ms
  expect(loop.p99Ms).toBeGreaterThanOrEqual(38);
  loop.completed('balance', 'ok', 0, 0, 0, 0);
  loop.stop();
});

test('with nothing in flight there is no reading, however long the loop is held', async () => {
  const loop = new LoopDelay();
  loop.opened();
  await pause(5);
  loop.completed('balance', 'ok', 0, 0, 0, 0); // the last answer in: the probe stops
  loop.closeSecond();
  blockLoop(40);
  await pause(20);
  expect(loop.closeSecond()).toBe(0);
  // A request that never was opened (no connection took it) does not end an episode.
  loop.opened();
  loop.completed('balance', 'disconnect', 0, 0, 0, 0, false);
  await pause(10);
  expect(loop.closeSecond()).toBeGreaterThan(0);
  loop.stop();
});

test('a second closed resets its readings; the run keeps them all', async () => {
  const loop = new LoopDelay();
  loop.opened();
  await pause(5);
  blockLoop(60);
  await pause(3);
  const blockedSecond = loop.closeSecond();
  expect(blockedSecond).toBeGreaterThanOrEqual(58_000);
  await pause(10);
  const quietSecond = loop.closeSecond();
  expect(quietSecond).toBeGreaterThan(0);
  expect(quietSecond).toBeLessThan(blockedSecond);
  expect(loop.p99Ms).toBeGreaterThanOrEqual(58);
  loop.stop();
});
