/**
 * Spare moments (src/core/spare-time.ts): deferred bookkeeping runs when a pacer gives it a
 * moment, at the next loop turn when no pacer gives any, and after a bounded wait when a pacer
 * gives none in time: it is put off, never lost.
 */
import fs from 'node:fs';
import { giveSpareMoment, givingSpareMoments, spareMoment } from '../../../src/core/spare-time';

const nowMs = () => performance.now();

test('with no pacer giving moments, a step runs at the next loop turn', async () => {
  // Asked from an I/O callback, the loop's next turn (its check phase) comes before any timer, even
  // one due at once, however busy the machine: Node's documented order. Asked from elsewhere (a
  // check-phase callback) a timer due by the next turn could come first.
  const order: string[] = [];
  await new Promise<void>((done) =>
    fs.stat(__filename, () => {
      const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('timer')), 0));
      void Promise.all([spareMoment().then(() => order.push('step')), timer]).then(() => done());
    }),
  );
  expect(order).toEqual(['step', 'timer']);
});

test('with a pacer giving them, a step waits for its moment, oldest first', async () => {
  givingSpareMoments(true);
  try {
    const order: number[] = [];
    const a = spareMoment().then(() => order.push(1));
    const b = spareMoment().then(() => order.push(2));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(giveSpareMoment()).toBe(true);
    await a;
    expect(order).toEqual([1]);
    expect(giveSpareMoment()).toBe(true);
    await b;
    expect(order).toEqual([1, 2]);
    expect(giveSpareMoment()).toBe(false); // none waiting
  } finally {
    givingSpareMoments(false);
  }
});

test('a step given no moment runs after the longest wait anyway; one left waiting when the pacer stops runs then', async () => {
  givingSpareMoments(true);
  const t0 = nowMs();
  await spareMoment();
  const waited = nowMs() - t0;
  expect(waited).toBeGreaterThanOrEqual(15); // MAX_DEFER_MS is 20 (timers may fire up to 1 ms early)
  expect(waited).toBeLessThan(1000);
  let ran = false;
  const pending = spareMoment().then(() => (ran = true));
  givingSpareMoments(false);
  await pending;
  expect(ran).toBe(true);
});
