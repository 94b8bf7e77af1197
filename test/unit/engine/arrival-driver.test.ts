/**
 * The open model's wake per batch (src/engine/arrival-driver.ts, issue #41): a wake is aimed at the
 * last request due within the batch window of the first not sent, so requests closer together
 * than the window share a wake and a write, and requests further apart each get their own; every
 * request is still timed from its own intended send time and none goes out before it.
 */
import { arrivalOffsetsNs, ScheduleAhead } from '../../../src/engine/arrival-driver';
import { constantArrivals } from '../../../src/engine/executors/constant-arrival-rate';
import { poissonArrivals } from '../../../src/engine/executors/poisson-arrival-rate';
import { LoadRunner } from '../../../src/engine/runner';
import { batchWindowNs } from '../../../src/engine/wake-clock';
import type { RawSample } from '../../../src/engine/sinks/request-sink';
import { startCountingResponder, type CountingResponder } from '../../support/counting-responder';
import { syntheticLines } from '../../support/synthetic-lines';
import { loadOptions, localTarget } from '../../support/load-options';

describe('the wake aimed at a batch', () => {
  test('at 20,000/s a window of 0.8 ms takes the 17 requests due within it; the next batch starts with the one after', () => {
    const ahead = new ScheduleAhead(constantArrivals({ kind: 'rate', rate: 20_000 }, 1000));
    expect(ahead.first).toBe(0);
    expect(ahead.lastWithin(800_000)).toBe(800_000); // 0, 50 µs, …, 800 µs
    for (let i = 0; i < 17; i++) ahead.take();
    expect(ahead.first).toBe(850_000);
    expect(ahead.lastWithin(800_000)).toBe(1_650_000);
    // No window: every request its own wake, as before batches.
    expect(ahead.lastWithin(0)).toBe(850_000);
  });

  test('at 50/s no other request is within the window: each is its own batch, at its own time', () => {
    const ahead = new ScheduleAhead(constantArrivals({ kind: 'rate', rate: 50 }, 1000));
    const aimed: number[] = [];
    for (let t = ahead.first; t !== Infinity; t = ahead.first) {
      aimed.push(ahead.lastWithin(800_000));
      ahead.take();
    }
    expect(aimed).toEqual([...arrivalOffsetsNs(constantArrivals({ kind: 'rate', rate: 50 }, 1000))]);
  });

  test('Poisson arrivals: the wake is the latest arrival within the window, never one past it', () => {
    const model = { kind: 'poisson-arrival-rate' as const, rate: 5000, seed: 'batches' };
    const all = [...arrivalOffsetsNs(poissonArrivals(model, 2000))];
    const ahead = new ScheduleAhead(poissonArrivals(model, 2000));
    const windowNs = 500_000;
    let batches = 0;
    for (let i = 0; i < all.length; batches++) {
      const aimed = ahead.lastWithin(windowNs);
      // The batch is the run of arrivals from the first up to first + window.
      let j = i;
      while (j + 1 < all.length && all[j + 1] <= all[i] + windowNs) j++;
      expect(aimed).toBe(all[j]);
      for (; i <= j; i++) expect(ahead.take()).toBe(all[i]);
    }
    expect(ahead.first).toBe(Infinity);
    expect(batches).toBeGreaterThan(all.length / 10); // ~2.5 arrivals a window on average, not one batch
    expect(batches).toBeLessThan(all.length);
  });

  test('requests read ahead and not sent still count as not sent', () => {
    const ahead = new ScheduleAhead(constantArrivals({ kind: 'rate', rate: 1000 }, 1000));
    ahead.take();
    ahead.lastWithin(50_000_000); // reads 51 requests ahead
    expect(ahead.left()).toBe(999);
    expect(ahead.left()).toBe(0);
  });
});

describe('against a responder that counts its reads', () => {
  let responder: CountingResponder;
  beforeEach(async () => {
    responder = await startCountingResponder();
  });
  afterEach(() => responder.close());

  /** A constant-rate run against the responder, with every request's sample. */
  async function runAt(rate: number) {
    // null answers: ok for any line (answer-size checks only answers of the right shape).
    const opts = loadOptions([localTarget(responder.port)], syntheticLines(10, 'ad'), {
      model: { kind: 'rate', rate },
      durationMs: 1000,
      mix: { balance: 1 },
      connections: 4,
      pipeline: 256,
      samples: true,
    });
    const runner = new LoadRunner(opts);
    const samples: RawSample[] = [];
    runner.on('interval', (e: { samples: RawSample[] }) => samples.push(...e.samples));
    const result = await runner.runServer(opts.servers[0], 0);
    const schedule = [...arrivalOffsetsNs(constantArrivals({ kind: 'rate', rate }, 1000))].map((ns) => ns / 1000);
    // Every request of the schedule is one sample, with its own intended time (µs from the start).
    expect(samples.map((s) => s.intendedUs).sort((a, b) => a - b)).toEqual(schedule);
    const answered = samples.filter((s) => s.latencyUs !== null);
    // The write that sent each answered request: its intended time plus its lag (latency − service).
    const writes = new Map<string, number[]>();
    for (const s of answered) {
      const lagUs = s.latencyUs! - s.serviceUs!;
      expect(lagUs).toBeGreaterThanOrEqual(-0.001); // never before its intended time
      const at = (s.intendedUs + lagUs).toFixed(3);
      writes.set(at, [...(writes.get(at) ?? []), s.intendedUs]);
    }
    // Each of a write's requests is timed from its own time, not the batch's.
    for (const intended of writes.values()) expect(new Set(intended).size).toBe(intended.length);
    // The lag recorded per request is the one its sample shows.
    const meanLagUs = answered.reduce((a, s) => a + s.latencyUs! - s.serviceUs!, 0) / answered.length;
    expect(Math.abs(result.totals.lag.mean - meanLagUs)).toBeLessThanOrEqual(1 + 0.01 * meanLagUs);
    return { answered: answered.length, writes: writes.size, server: await responder.counts(), result };
  }

  test('at 10,000/s the requests due within a window share one write; each is timed from its own intended time, none sent before it', async () => {
    const rate = 10_000;
    const { answered, writes, server } = await runAt(rate);
    // The window the engine used: requests due within it share a write (a late wake sends more at once).
    const perWindow = (rate * batchWindowNs()) / 1e9;
    // Enough answered to judge the sharing by. How many a starved machine let it send in its
    // second is not this test's question (a CI run with four test files on two cores sent 57 %).
    expect(answered).toBeGreaterThan(0.25 * rate);
    expect(answered / writes).toBeGreaterThanOrEqual(Math.max(1.5, 0.5 * perWindow));
    // At the server: each read held about one write's requests.
    expect(server.calls).toBe(answered);
    expect(server.calls / server.reads).toBeGreaterThanOrEqual(Math.max(1.5, 0.5 * perWindow));
  }, 30_000);

  test('at 50/s every request has a wake and a write of its own', async () => {
    const { answered, writes, server } = await runAt(50);
    expect(answered).toBe(50);
    // One each, but for requests a pause of this busy machine put together (20 ms apart).
    expect(writes).toBeGreaterThanOrEqual(45);
    expect(server.reads).toBeGreaterThanOrEqual(45);
    expect(server.mostInOneRead).toBeLessThanOrEqual(3);
  }, 30_000);
});
