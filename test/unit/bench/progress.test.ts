/**
 * bench's progress: the bar's ETA and the projected total are one estimate, and durations never
 * read "2m60s" (cli-progress's own format rounds the seconds after splitting off the minutes).
 */
import { EventEmitter } from 'node:events';
import { attachProgress } from '../../../src/bench/progress';
import { formatDuration, RemainingTime } from '../../../src/core/duration';

test('durations are rounded before they are split: no part reads 60', () => {
  expect(formatDuration(179.6)).toBe('3m00s');
  expect(formatDuration(179.4)).toBe('2m59s');
  expect(formatDuration(59.6)).toBe('1m00s');
  expect(formatDuration(7)).toBe('7s');
  expect(formatDuration(1500)).toBe('25m00s');
  expect(formatDuration(3599.7)).toBe('1h00m');
  expect(formatDuration(7199)).toBe('2h00m');
  expect(formatDuration(Infinity)).toBe('-');
  for (let s = 0; s < 20_000; s += 1.3) expect(formatDuration(s)).not.toMatch(/(^|[hm])60[ms]/);
});

test('time left is the whole run’s average rate applied to what is left, a resumed run’s earlier part excluded', () => {
  const r = new RemainingTime(1000, 100);
  expect(r.remainingMs(100, 1000, 5000)).toBeNull();
  expect(r.remainingMs(300, 1000, 11_000)).toBe(35_000); // 200 in 10 s, 700 left
});

test('the bar’s ETA and the estimated total printed after the first pass agree', () => {
  const runner = new EventEmitter();
  const out: string[] = [];
  const stream = { write: (s: string) => (out.push(s), true), isTTY: false, columns: 200, on: () => stream, removeListener: () => stream } as unknown as NodeJS.WriteStream;
  let clock = 0;
  attachProgress(runner, stream, () => clock);
  runner.emit('start', { total: 3000, alreadyDone: 0 });
  // 1000 calls in 500 s: 1000 s left, 1500 s in all (the figures of the report).
  for (let i = 1; i <= 1000; i++) {
    clock = i * 500;
    runner.emit('sample', { completed: i, sample: { status: 'ok' } });
  }
  runner.emit('pass-done', { completed: 1000, total: 3000 });
  runner.emit('end');
  const text = out.join('');
  expect(text).toContain('estimated total 25m00s (1500.0 s), ETA 16m40s');
  // The bar's last line, drawn at the stop, carries the same ETA.
  const barLines = text.split('\n').filter((l) => l.startsWith('bench ['));
  expect(barLines.at(-1)).toContain('ETA 16m40s');
  expect(text).not.toMatch(/\d+m60s/);
});

test('on a terminal the bar is drawn between calls, when a sample ends one, at most ten times a second, and not on a timer while a call is awaited', async () => {
  const runner = new EventEmitter();
  const bars: string[] = [];
  const stream = { write: (s: string) => (s.includes('calls') && bars.push(s), true), isTTY: true, columns: 200, on: () => stream, removeListener: () => stream } as unknown as NodeJS.WriteStream;
  let clock = 0;
  attachProgress(runner, stream, () => clock);
  runner.emit('start', { total: 1000, alreadyDone: 0 });
  const atStart = bars.length;
  // 200 calls over 2 s of the view's clock: a draw per 100 ms of it, 20 in all.
  for (let i = 1; i <= 200; i++) {
    clock = i * 10;
    runner.emit('sample', { completed: i, sample: { status: 'ok' } });
  }
  const drawn = bars.length - atStart;
  expect(drawn).toBeGreaterThanOrEqual(19);
  expect(drawn).toBeLessThanOrEqual(21);
  // A call ended too soon after the last draw to be drawn, then the next awaited for half a second
  // of real time: the bar has news, and still nothing is drawn meanwhile.
  clock += 1;
  runner.emit('sample', { completed: 201, sample: { status: 'error' } });
  const before = bars.length;
  await new Promise((r) => setTimeout(r, 500));
  expect(bars.length).toBe(before);
  runner.emit('end');
});
