/**
 * The HDR-intervals sink's seconds: a send counts in the second it was written in, though the
 * runner closes a second a loop turn after its end (a send due on the whole second is written
 * before that close), and the run's last interval keeps what was written past its second.
 */
import * as hdr from 'hdr-histogram-js';
import { IntervalRecorder } from '../../../../src/engine/sinks/hdr-intervals';

const CONTEXT = { targetRate: 100, vus: null, inFlight: 0, loopDelayP99Us: 0 };

/** Sends written at each of `atMs` (ms on the run's clock), each `lagUs` late. */
function send(rec: IntervalRecorder<string>, atMs: number[], lagUs = 0): void {
  for (const at of atMs) rec.sentOne(lagUs, at * 1e6);
}

function lagCount(encoded: string | null): number {
  return encoded === null ? 0 : hdr.decodeFromCompressedBase64(encoded).totalCount;
}

test('a send written on or after the end of the second being recorded counts in the next, with its lag', async () => {
  const rec = new IntervalRecorder<string>('s', 1e9);
  send(rec, [0, 500, 999.9]);
  // Written at the second's end and after it, before the runner's timer closes the second.
  send(rec, [1000, 1000.4], 70);
  const first = await rec.close(0, 0, 1000, CONTEXT);
  send(rec, [1500, 2000]);
  const second = await rec.close(1, 1000, 1000, CONTEXT);
  const third = await rec.close(2, 2000, 1000, CONTEXT);
  expect([first, second, third].map(({ record }) => [record.sent, lagCount(record.lag)])).toEqual([
    [3, 3],
    [3, 3],
    [1, 1],
  ]);
  expect(hdr.decodeFromCompressedBase64(second.record.lag!).maxValue).toBeGreaterThanOrEqual(70);
  expect(rec.totals.sent).toBe(7);
  expect(rec.totals.lag.totalCount).toBe(7);
});

test("the run's last interval keeps what was written past its second: nothing is lost at the end", async () => {
  const rec = new IntervalRecorder<string>('s', 1e9);
  send(rec, [100, 1000.2, 1800]);
  const { record } = await rec.close(0, 0, 1000, CONTEXT, true);
  expect(record.sent).toBe(3);
  expect(rec.totals.sent).toBe(3);
});

test('without a clock of seconds (a bench\'s closes) every send counts in the interval open', async () => {
  const rec = new IntervalRecorder<string>('s');
  send(rec, [0, 5000, 12_000]);
  rec.sentOne(0);
  const { record } = await rec.close(0, 0, 1000, CONTEXT);
  expect(record.sent).toBe(4);
});
