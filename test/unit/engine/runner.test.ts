/**
 * The load engine against deliberately misbehaving local servers (a null responder, one that stalls,
 * one that answers errors): requests go out on schedule whatever the server does, a stall shows up
 * as latency from the intended send and as dropped requests once every pipeline is full, errors are
 * categorised, and every interval's histograms survive an encode/decode round trip.
 */
import { answeringOf } from '../../../src/core/answering';
import * as hdr from 'hdr-histogram-js';
import { LoadOptions, LoadRunner } from '../../../src/engine/runner';
import { intervalLine, summaryText } from '../../../src/load/summary';
import { summarise } from '../../../src/engine/summary';
import { arrivalOffsetsNs } from '../../../src/engine/arrival-driver';
import { rampingArrivals } from '../../../src/engine/executors/ramping-arrival-rate';
import { problemsOf } from '../../../src/engine/executors/registry';
import { parseSourceAddresses } from '../../../src/load/source-addresses';
import type { IntervalRecord } from '../../../src/core/load-types';
import { startMisbehavingServer, startMisbehavingServerProcess, Misbehaving, MisbehavingOptions } from '../../support/misbehaving-server';
import { syntheticLines } from '../../support/synthetic-lines';
import { loadOptions, localTarget } from '../../support/load-options';
import { inWorker } from '../../support/in-worker';

const servers: Misbehaving[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(o: MisbehavingOptions): Promise<Misbehaving> {
  const s = await startMisbehavingServer(o);
  servers.push(s);
  return s;
}

const lines = syntheticLines(10, 'l');

function options(port: number, extra: Partial<LoadOptions>): LoadOptions {
  return loadOptions([localTarget(port)], lines, extra);
}

async function run(opts: LoadOptions) {
  const runner = new LoadRunner(opts);
  const intervals: IntervalRecord[] = [];
  runner.on('interval', ({ record }: { record: IntervalRecord }) => intervals.push(record));
  const result = await runner.runServer(opts.servers[0], 0);
  return { result, intervals };
}

const decode = (b64: string) => hdr.decodeFromCompressedBase64(b64, 32, false);

/** Every scheduled unit ends as exactly one outcome: the outcomes add up to the schedule. */
function expectEveryUnitOnce(result: Awaited<ReturnType<typeof run>>['result'], scheduled: number) {
  const s = summarise(result);
  expect(s.scheduled).toBe(scheduled);
  expect(Object.values(s.outcomes).reduce((a, b) => a + b, 0)).toBe(scheduled);
  return s;
}

test('a constant rate goes out on schedule; interval histograms add up to the run totals', async () => {
  const s = await server({ nullResults: true });
  // The server shares this process: a pause of the process (a busy machine) holds its answers too,
  // and 2 × 4 in flight overflowed after 40 ms of one (CI, once). 2 × 128 ride out a second.
  const { result, intervals } = await run(options(s.port, { model: { kind: 'rate', rate: 200 }, durationMs: 2000, pipeline: 128 }));
  expect(result.totals.sent).toBe(400);
  expect(result.totals.byOutcome.get('ok')).toBe(400);
  expect(result.totals.dropped).toBe(0);
  expect(intervals.length).toBeGreaterThanOrEqual(2);
  let count = 0;
  for (const rec of intervals) {
    for (const c of rec.cells) {
      const h = decode(c.latency!);
      expect(h.totalCount).toBe(c.count); // the encoded histogram round-trips
      count += c.count;
    }
  }
  expect(count).toBe(400);
  expect(intervals[0].targetRate).toBe(200);
  expect(intervals[0].sent).toBeGreaterThanOrEqual(195);
  const summary = expectEveryUnitOnce(result, 400);
  expect(summary.answered).toBe(400);
  expect(summary.stoppedAnswering).toBeNull();
});

test("an open model's schedule starts once the wake clock's worker is up, not while its first sends are due", async () => {
  const s = await server({ nullResults: true });
  let upAtStart: boolean | undefined;
  let answered: number | undefined;
  // Modules of their own: the clock's worker is started once per process, by whichever run is first.
  await jest.isolateModulesAsync(async () => {
    const { LoadRunner: FreshRunner } = await import('../../../src/engine/runner');
    const clock = await import('../../../src/engine/wake-clock');
    expect(clock.wakeClockUp()).toBe(false);
    const opts = options(s.port, { model: { kind: 'rate', rate: 100 }, durationMs: 300 });
    const runner = new FreshRunner(opts);
    runner.on('schedule-start', () => (upAtStart = clock.wakeClockUp()));
    answered = (await runner.runServer(opts.servers[0], 0)).totals.byOutcome.get('ok');
  });
  expect(upAtStart).toBe(true);
  expect(answered).toBe(30);
});

test('a stalled server shows as latency from the intended send, and as dropped requests once every pipeline is full', async () => {
  // 1 s stall from 0.8 s in; 2 connections x 4 in flight = 8 requests can wait, the rest are dropped.
  // In its own process: the stall's end is the server's own clock, not this busy process's timers.
  const s = await startMisbehavingServerProcess({ nullResults: true, stall: { atMs: 800, forMs: 1000 } });
  const { result } = await run(options(s.port, { model: { kind: 'rate', rate: 100 }, durationMs: 3000, connections: 2, pipeline: 4 })).finally(() => s.close());
  const t = result.totals;
  expect(t.sent + t.dropped).toBe(300); // the schedule never paused
  expect(t.dropped).toBeGreaterThanOrEqual(80); // ~100 due in the stall, minus the 8 that could wait
  expect(t.dropped).toBeLessThanOrEqual(110); // a pipeline that never recovered drops ~200
  // Held requests waited up to the whole stall, measured from when they were due.
  expect(t.latency.maxValue).toBeGreaterThan(900_000);
  expect(t.latency.getValueAtPercentile(50)).toBeLessThan(50_000);
  // It answered again after the stall: slow, not stopped.
  expect(expectEveryUnitOnce(result, 300).stoppedAnswering).toBeNull();
});

test('error replies are categorised, not counted as successes', async () => {
  const s = await server({}); // answers scripthash calls with a JSON-RPC error
  const { result } = await run(options(s.port, { model: { kind: 'rate', rate: 50 }, durationMs: 1000, pipeline: 64 }));
  expect(result.totals.byOutcome.get('ok') ?? 0).toBe(0);
  expect(result.totals.byOutcome.get('server-error')).toBe(50);
  expect(result.onsetMs['server-error']).toBe(0);
  // Error replies are answers: the rate answered is the rate sent.
  const summary = expectEveryUnitOnce(result, 50);
  expect(summary.answered).toBe(50);
  expect(summary.achievedRps).toBe(50);
});

test('a server that disconnects mid-run: the failures are disconnects, and the run goes on', async () => {
  const s = await server({ nullResults: true });
  const runner = new LoadRunner(options(s.port, { model: { kind: 'rate', rate: 100 }, durationMs: 2500 }));
  const done = runner.runServer(runner['opts'].servers[0], 0);
  await new Promise((r) => setTimeout(r, 800));
  await s.close(); // every socket dropped, the port closed: the reconnect loop takes over
  await new Promise((r) => setTimeout(r, 400)); // ~40 requests fall due while nothing listens
  const back = await startMisbehavingServer({ nullResults: true, port: s.port });
  servers.push(back);
  const result = await done;
  const t = result.totals;
  expect(t.sent + t.dropped).toBe(250);
  expect(t.byOutcome.get('disconnect') ?? 0).toBeGreaterThan(0);
  expect(t.byOutcome.get('ok')).toBeGreaterThan(100); // before the drop and after the return
  expect(back.answered).toBeGreaterThan(0); // reconnected
  expect(expectEveryUnitOnce(result, 250).stoppedAnswering).toBeNull();
});

test('a server that answers its first 12 requests and then nothing: its rate is what it answered, and it is said to have stopped', async () => {
  const s = await server({ nullResults: true, answerFirst: 12 });
  // Timeouts of 1 s: a pause of this process (which answers too) is not taken for its silence.
  const { result } = await run(options(s.port, { model: { kind: 'rate', rate: 100 }, durationMs: 2000, timeoutMs: 1000 }));
  const summary = expectEveryUnitOnce(result, 200);
  expect(summary.answered).toBe(12);
  expect(summary.outcomes.ok).toBe(12);
  expect(summary.outcomes.timeout).toBeGreaterThan(0);
  // 12 answered in 2 s: 6/s, not the 100/s that went out or timed out.
  expect(summary.achievedRps).toBe(6);
  expect(summary.sentRps).toBeGreaterThan(summary.achievedRps);
  expect(summary.stoppedAnswering).not.toBeNull();
  expect(summary.stoppedAnswering!.answered).toBe(12);
  expect(summary.stoppedAnswering!.of).toBe(200);
  expect(summary.stoppedAnswering!.atS).toBeLessThan(1); // 12 requests at 100/s: by 0.12 s, of a 2 s run
  // Said first, before the table, whatever the status.
  const answering = [answeringOf(summary.server, summary.outcomes, { unit: 'request', stoppedAnswering: summary.stoppedAnswering })];
  const text = summaryText([summary], answering, 1, 'x.sqlite').split('\n');
  expect(text[1]).toMatch(/^s: answered 12 of 200, stopped answering at 0\.\d\d s \(\d+ unanswered after\)$/);
  expect(text.find((l) => l.startsWith('s '))).toContain('completed, stopped answering');
  // The percentiles are of the 12 answers only, and say so by their count.
  expect(result.totals.latency.totalCount).toBe(12);
});

test('a stop mid-run: requests in flight are cut short, the rest of the schedule is not sent, and all add up', async () => {
  // Answers far beyond the stop and its grace; stopped at the first second's close, by when both
  // pipelines are full (0.32 s at 100/s) however slow the start.
  const s = await server({ nullResults: true, delayMs: 10_000 });
  const runner = new LoadRunner(options(s.port, { model: { kind: 'rate', rate: 100 }, durationMs: 3000, connections: 2, pipeline: 16, timeoutMs: 20_000 }));
  runner.once('interval', () => runner.stop());
  const result = await runner.runServer(runner['opts'].servers[0], 0);
  const summary = expectEveryUnitOnce(result, 300);
  expect(summary.outcomes['cut-short']).toBe(32); // both pipelines full, nothing answered within the grace
  expect(summary.outcomes['not-sent']).toBeGreaterThan(150);
  expect(summary.outcomes.dropped).toBeGreaterThan(0);
  expect(summary.answered).toBe(0);
  expect(result.status).toBe('interrupted');
});

test('the closed model keeps one request in flight per virtual user', async () => {
  const s = await server({ nullResults: true, delayMs: 20 });
  const { result } = await run(options(s.port, { model: { kind: 'vus', vus: 5, thinkTimeMs: 0 }, durationMs: 1500, connections: 5 }));
  // 5 users x (1.5 s / ~20 ms) ≈ 375 requests; never more than 5 at once.
  expect(result.totals.sent).toBeGreaterThan(150);
  expect(result.totals.sent).toBeLessThan(400);
  expect(s.meanInFlight()).toBeGreaterThan(4);
  expect(s.meanInFlight()).toBeLessThanOrEqual(5.01);
  // No schedule in a closed model: every request a user started ends as one outcome.
  expect(expectEveryUnitOnce(result, result.totals.sent + result.totals.dropped + result.totals.cutShort).stoppedAnswering).toBeNull();
});

/** Every outcome of a run, dropped included: each scheduled request must be exactly one of them. */
const outcomes = (t: { byOutcome: Map<string, number>; dropped: number }) => [...t.byOutcome.values()].reduce((a, n) => a + n, t.dropped);

test('per-vu-iterations: each of N users runs exactly K iterations, each one outcome, and the run ends by itself', async () => {
  const s = await server({ nullResults: true, delayMs: 10 });
  const { result, intervals } = await run(options(s.port, { model: { kind: 'per-vu-iterations', vus: 3, iterations: 7, thinkTimeMs: 0 }, durationMs: 60_000, connections: 3 }));
  expect(result.totals.sent).toBe(21);
  expect(s.answered).toBe(21);
  expect(outcomes(result.totals)).toBe(21);
  expect(result.totals.byOutcome.get('ok')).toBe(21);
  expect(intervals.flatMap((r) => r.cells).reduce((a, c) => a + c.count, 0)).toBe(21);
  expect(s.meanInFlight()).toBeLessThanOrEqual(3.01);
  expect(result.durationMs).toBeLessThan(5000); // done long before the 60 s limit
  expect(result.status).toBe('completed');
});

test('shared-iterations: N users share exactly K iterations', async () => {
  const s = await server({ emptyAnswers: true, delayMs: 5 });
  const { result } = await run(options(s.port, { model: { kind: 'shared-iterations', vus: 4, iterations: 10, thinkTimeMs: 0 }, durationMs: 60_000, connections: 4 }));
  expect(result.totals.sent).toBe(10);
  expect(s.answered).toBe(10);
  expect(outcomes(result.totals)).toBe(10);
  // An empty answer where the dataset has data is never ok.
  expect(result.totals.byOutcome.get('ok') ?? 0).toBe(0);
});

test('iterations against a server that never answers: each ends as exactly one timeout', async () => {
  const s = await server({ hangAfterHandshake: true });
  const t0 = Date.now();
  const { result } = await run(options(s.port, { model: { kind: 'per-vu-iterations', vus: 2, iterations: 2, thinkTimeMs: 0 }, durationMs: 60_000, connections: 2, timeoutMs: 300 }));
  expect(result.totals.sent).toBe(4);
  expect(outcomes(result.totals)).toBe(4);
  // A timed-out connection is replaced; an iteration finding none usable meanwhile is a disconnect.
  expect([...result.totals.byOutcome.keys()].filter((k) => k !== 'timeout' && k !== 'disconnect')).toEqual([]);
  expect(result.totals.byOutcome.get('timeout')).toBeGreaterThanOrEqual(2);
  expect(Date.now() - t0).toBeLessThan(10_000);
});

test('iterations a stop kept from starting still end as outcomes: sent, cut short and not sent add up to N x K', async () => {
  const s = await server({ nullResults: true, delayMs: 100 });
  const runner = new LoadRunner(options(s.port, { model: { kind: 'per-vu-iterations', vus: 2, iterations: 50, thinkTimeMs: 0 }, durationMs: 60_000, connections: 2, timeoutMs: 10_000 }));
  const done = runner.runServer(runner['opts'].servers[0], 0);
  await new Promise((r) => setTimeout(r, 700)); // about 7 of each user's 50 iterations
  runner.stop();
  const result = await done;
  const summary = expectEveryUnitOnce(result, 100);
  expect(summary.outcomes['not-sent']).toBeGreaterThan(50);
  expect(summary.outcomes.ok).toBeGreaterThan(4);
  expect(result.status).toBe('interrupted');
  expect(result.durationMs).toBeLessThan(5000); // the time it ran, not the 60 s limit
});

test("an executor's validate() names every problem at once", () => {
  const problems = problemsOf({ kind: 'shared-iterations', vus: 0, iterations: 2.5, thinkTimeMs: -1 });
  expect(problems.join('\n')).toMatch(/--vus must be an integer > 0, got 0/);
  expect(problems.join('\n')).toMatch(/--iterations must be an integer > 0, got 2.5/);
  expect(problems.join('\n')).toMatch(/--think-time must not be negative/);
  expect(problemsOf({ kind: 'shared-iterations', vus: 5, iterations: 3, thinkTimeMs: 0 })).toEqual([
    '--iterations 3 is fewer than --vus 5: some users would never run',
  ]);
  expect(problemsOf({ kind: 'rate', rate: 10 })).toEqual([]);
  expect(problemsOf({ kind: 'rate', rate: 0 })).toEqual(['--rate must be a number > 0, got 0']);
  expect(problemsOf({ kind: 'vus-stages', stages: [], startVus: -1, thinkTimeMs: -1 })).toEqual([
    '--vus-stages: no stages',
    '--start-vus must be >= 0, got -1',
    '--think-time must not be negative, got -1 ms',
  ]);
  expect(problemsOf({ kind: 'stages', stages: [{ durationMs: 0, target: 5 }], startRate: 0 })).toEqual(['--stages: stage 0ms:5 needs a positive duration and a target >= 0']);
  expect(problemsOf({ kind: 'per-vu-iterations', vus: 2, iterations: 0, thinkTimeMs: 0 })).toEqual(['--iterations-per-vu must be an integer > 0, got 0']);
});

test('a stop while the handshake hangs ends within 2 s, with nothing sent', async () => {
  const s = await server({ silent: true });
  const runner = new LoadRunner(options(s.port, { timeoutMs: 30_000 }));
  const running = runner.runServer(runner['opts'].servers[0], 0);
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  runner.stop();
  await expect(running).rejects.toThrow(/stopped while connecting/);
  expect(Date.now() - t0).toBeLessThan(2000);
});

test('a ramp sends the integral of its rate, and shards split the schedule exactly', () => {
  const ramp = { kind: 'stages' as const, startRate: 0, stages: [{ durationMs: 2000, target: 100 }, { durationMs: 1000, target: 100 }] };
  const all = [...arrivalOffsetsNs(rampingArrivals(ramp, 3000))];
  expect(all.length).toBe(200); // 0→100 over 2 s = 100 requests, then 100 in the last second
  expect(all.filter((t) => t < 1e9).length).toBe(25); // a quarter of the ramp's area lies in its first half
  const a = [...arrivalOffsetsNs(rampingArrivals(ramp, 3000, { index: 1, count: 2 }))];
  const b = [...arrivalOffsetsNs(rampingArrivals(ramp, 3000, { index: 2, count: 2 }))];
  expect([...a, ...b].sort((x, y) => x - y)).toEqual(all);
});

test('a constant rate sends rate × duration requests, not one more where the float product falls a hair short of the end', async () => {
  const runs: Array<[number, number]> = [];
  for (let rate = 1; rate <= 1000; rate++) for (const s of [1, 2, 3, 5, 10, 60]) runs.push([rate, s * 1000]);
  // 40 million arrivals: counted outside jest's sandbox, where they take seconds rather than a minute.
  const counts = await inWorker<number[]>('test/support/arrival-counts.ts', 'constantArrivalCounts', [...runs, [2.5, 1000], [0.5, 10_000]]);
  // 29·(1e9/29) is 999999999.9999999: computed that way, a second at 29/s sent 30.
  const wrong = runs.flatMap(([rate, ms], i) => (counts[i] !== (rate * ms) / 1000 ? [`${rate}/s for ${ms / 1000}s: ${counts[i]}`] : []));
  expect(wrong).toEqual([]);
  expect(counts.slice(-2)).toEqual([3, 5]); // 2.5/s for 1 s: a tick at 0, 0.4 and 0.8 s; 0.5/s for 10 s: 5
});

test('--source-addresses takes loopback only', () => {
  expect(parseSourceAddresses('127.0.0.2-127.0.0.4')).toEqual(['127.0.0.2', '127.0.0.3', '127.0.0.4']);
  expect(() => parseSourceAddresses('10.0.0.1')).toThrow(/not a loopback address/);
  expect(() => parseSourceAddresses('127.0.0.9-127.0.0.2')).toThrow(/backwards/);
});

test('the line per second counts answers, not timeouts, in its rate', () => {
  const rec = { server: 's', index: 0, startMs: 0, lengthMs: 1000, targetRate: 50, vus: null, sent: 50, dropped: 0, inFlight: 40, lag: null, loopDelayP99Us: 0, cells: [] };
  // 3 ok and 2 error replies answered; 45 timed out: 5 answered in the second, not 50.
  const line = intervalLine(rec, { ok: 3, errors: 47, answered: 5, dropped: 0, sent: 50, p50Us: 900, p99Us: 1200 });
  expect(line).toContain('answered 5/s  sent 50');
});
