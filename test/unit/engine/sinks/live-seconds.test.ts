/**
 * The seconds a bench or a wallet load shows its watchers: every unit that ended is in exactly one
 * second, seconds follow each other on one grid, and a server's last second closes when it is done.
 */
import * as hdr from 'hdr-histogram-js';
import type { IntervalRecord } from '../../../../src/core/load-types';
import { LiveSeconds } from '../../../../src/engine/sinks/live-seconds';
import type { LiveState } from '../../../../src/engine/outputs/output';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('every unit lands in one second; seconds are consecutive on one grid; finish() closes a server early and stop() the rest', async () => {
  const seen: Array<{ record: IntervalRecord<string>; live: LiveState }> = [];
  let inFlightNow = 0;
  const live = new LiveSeconds<string>({
    interval: (record, state) => seen.push({ record, live: state }),
    now: (server) => ({ vus: 2, state: server === 'a' ? { progress: { done: 1, total: 2, pass: 0, passes: 1, warmup: false } } : {} }),
  });
  live.begin('a');
  live.begin('b');
  const sent = { a: 0, b: 0 };
  const started = Date.now();
  // Ends mid-way through the third second: room either side for a late timer on a busy machine.
  while (Date.now() - started < 2_500) {
    live.started('a');
    inFlightNow++;
    live.ended('a', 'balance', { outcome: sent.a % 10 === 0 ? 'timeout' : 'ok', durationNs: 2_000_000 });
    inFlightNow--;
    sent.a++;
    if (Date.now() - started < 1_200) {
      live.ended('b', 'sync', { outcome: 'ok', durationNs: 5_000_000, lagNs: 1_000_000 });
      sent.b++;
    }
    await sleep(7);
  }
  live.started('a'); // still running at the end
  await live.finish('b');
  // A unit of a finished server is not counted anywhere.
  live.ended('b', 'sync', { outcome: 'ok', durationNs: 1 });
  await live.stop();

  const of = (server: string) => seen.filter((s) => s.record.server === server).map((s) => s.record);
  const a = of('a');
  const b = of('b');
  expect(a.reduce((n, r) => n + r.sent, 0)).toBe(sent.a);
  expect(a.reduce((n, r) => n + r.cells.reduce((m, c) => m + c.count, 0), 0)).toBe(sent.a);
  expect(b.reduce((n, r) => n + r.sent, 0)).toBe(sent.b);
  expect(a.map((r) => r.index)).toEqual(a.map((_, i) => i));
  expect(a.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < a.length; i++) expect(a[i].startMs - a[i - 1].startMs).toBe(1000);
  // b finished in its third second (index 2), shorter than a full one.
  expect(b.length).toBe(3);
  expect(b[2].lengthMs).toBeLessThan(1000);
  expect(a.at(-1)!.inFlight).toBe(1);
  expect(a[0].vus).toBe(2);
  // Timeouts counted as their own outcome; a scheduled unit's lag kept, an unscheduled one's not.
  expect(a.reduce((n, r) => n + (r.cells.find((c) => c.outcome === 'timeout')?.count ?? 0), 0)).toBe(Math.ceil(sent.a / 10));
  expect(a[0].lag).toBeNull();
  expect(hdr.decodeFromCompressedBase64(b[0].lag!).getValueAtPercentile(50)).toBeCloseTo(1000, -1);
  // Latency of an ok unit: its duration plus its lag (from its intended start).
  const bOk = hdr.decodeFromCompressedBase64(b[0].cells[0].latency!);
  expect(bOk.getValueAtPercentile(50) / 1000).toBeCloseTo(6, 1);
  expect(seen.find((s) => s.record.server === 'a')!.live.progress?.total).toBe(2);
});

test('an output that throws stops the seconds and is reported once, never crashing the process', async () => {
  const calls: string[] = [];
  let failedWith: unknown;
  const live = new LiveSeconds<string>({
    interval: (record) => {
      calls.push(`${record.server}:${record.sent}`);
      throw new Error('ENOSPC: no space left on device');
    },
    failed: (err) => (failedWith = err),
  });
  live.begin('a');
  live.started('a');
  live.started('a');
  live.started('a');
  live.ended('a', 'sync', { outcome: 'ok', durationNs: 1_000 });
  live.ended('a', 'sync', { outcome: 'timeout', durationNs: 1_000 });
  await sleep(1_200);
  live.ended('a', 'sync', { outcome: 'ok', durationNs: 1_000 });
  await live.stop();
  // The first second held the two units that ended in it; nothing after the failure.
  expect(calls).toEqual(['a:2']);
  expect((failedWith as Error).message).toMatch(/ENOSPC/);
  expect(live.failure).toBe(failedWith);
});

test('a stop within a second closes that second short, with its units', async () => {
  const records: Array<IntervalRecord<string>> = [];
  const live = new LiveSeconds<string>({ interval: (record) => records.push(record) });
  live.begin('a');
  live.ended('a', 'balance', { outcome: 'ok', durationNs: 1_000 });
  await live.stop();
  // The stop came within the first second: one record, shorter than a second, holding the unit.
  expect(records).toHaveLength(1);
  expect(records[0].sent).toBe(1);
  expect(records[0].lengthMs).toBeLessThan(1000);
});
