/**
 * The Electrum wallet's padded writes, as the electrum workload's connection makes them: what goes
 * out when, cut where, padded how. Against a clock of the test's own.
 */
import { PaddedWrites } from '../../../src/electrum/padded-writes';

/** A request line of exactly `bytes` bytes with its newline. */
const line = (id: number, bytes: number) => {
  const head = `{"jsonrpc":"2.0","method":"m","id":${id},"params":["`;
  return head + 'a'.repeat(bytes - head.length - 4) + '"]}\n';
};

function writer() {
  let now = 0;
  const out: string[] = [];
  const w = new PaddedWrites((b) => out.push(b), () => now);
  return { w, out, advance: (ms: number) => ((now += ms), jest.advanceTimersByTime(ms)) };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('the first KiB of messages goes out at once, each padded to 1 KiB before its closing brace', () => {
  const { w, out } = writer();
  for (let i = 0; i < 7; i++) w.push(line(i, 150)); // 7 × 149 message bytes = 1043: the 8th waits
  w.push(line(7, 150));
  expect(out).toHaveLength(7);
  for (const [i, b] of out.entries()) {
    expect(b.length).toBe(1024);
    expect(b).toBe(line(i, 150).slice(0, -2) + ' '.repeat(1024 - 150) + '}\n');
    expect(JSON.parse(b)).toMatchObject({ id: i });
  }
  w.stop();
});

test('after it, requests wait for 1 KiB; a full buffer goes out cut where the padding is least, the rest waits 1 s after the last write', () => {
  const { w, out, advance } = writer();
  for (let i = 0; i < 7; i++) w.push(line(i, 150));
  out.length = 0;
  advance(10);
  w.push(line(7, 150)); // 150 waiting
  for (let i = 8; i < 14; i++) w.push(line(i, 150)); // 1050 waiting: all (pad 998 to 2048) or the first 6 (900, pad 124 to 1024)
  expect(out).toHaveLength(1);
  expect(out[0].length).toBe(1024);
  expect(out[0].split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([7, 8, 9, 10, 11, 12]);
  advance(999);
  expect(out).toHaveLength(1); // 150 bytes still waiting, within the second
  advance(2);
  expect(out).toHaveLength(2);
  expect(out[1]).toBe(line(13, 150).slice(0, -2) + ' '.repeat(1024 - 150) + '}\n');
  w.stop();
});

test('a request after a quiet second goes out at once; one message too big for half the size goes whole, padded to the next power of two', () => {
  const { w, out, advance } = writer();
  for (let i = 0; i < 7; i++) w.push(line(i, 150));
  out.length = 0;
  advance(1500);
  w.push(line(7, 100));
  expect(out.map((b) => b.length)).toEqual([1024]);
  w.push(line(8, 1100));
  expect(out.map((b) => b.length)).toEqual([1024, 2048]);
  w.stop();
});

test('each message is told when it goes out (a call is timed from then, not from its queueing)', () => {
  const { w, out, advance } = writer();
  const wrote: number[] = [];
  for (let i = 0; i < 7; i++) w.push(line(i, 150), () => wrote.push(i));
  expect(wrote).toEqual([0, 1, 2, 3, 4, 5, 6]);
  w.push(line(7, 150), () => wrote.push(7));
  w.push(line(8, 150), () => wrote.push(8));
  expect(wrote).toHaveLength(7);
  advance(1001);
  expect(wrote).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  expect(out).toHaveLength(8);
  w.stop();
});
