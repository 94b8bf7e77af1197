/**
 * The breaking point's attribution (src/load/find-max.ts): a failing step whose generator fell
 * behind ends the search as the generator's limit, unless the step fails on the server's own time
 * alone (its service time, from the actual write, is over the SLO even after the loop's delay, or
 * its errors alone are over the limit): then the figure is the server's, and says so.
 */
import { findMax, stepLine, type FindMaxOptions } from '../../../src/engine/find-max';
import { LoadStopped, type LoadRunner, type ServerResult } from '../../../src/engine/runner';
import { UnitsNotOpened } from '../../../src/engine/unit-source';
import { IntervalRecorder } from '../../../src/engine/sinks/hdr-intervals';

const o: FindMaxOptions = {
  slo: { percentile: 99, thresholdMs: 100, text: 'p99<100ms' },
  maxErrorRate: 0.01,
  dwellMs: 1000,
  warmupMs: 0,
  startRate: 100,
  factor: 2,
  maxRate: 1000,
  bisectSteps: 0,
};

/** A step's result: `rate` requests answered in a second, each `lagMs` late and `serviceMs` in the server. */
async function step(rate: number, serviceMs: number, lagMs: number, opts: { bound: boolean; loopMs?: number; timeouts?: number }): Promise<ServerResult> {
  const rec = new IntervalRecorder('s');
  for (let i = 0; i < rate; i++) {
    rec.opened();
    const intended = i * 1e6;
    rec.sentOne(lagMs * 1000);
    rec.completed('balance', i < (opts.timeouts ?? 0) ? 'timeout' : 'ok', intended, intended + lagMs * 1e6, intended + (lagMs + serviceMs) * 1e6, 10);
  }
  await rec.close(0, 0, 1000, { targetRate: rate, vus: null, inFlight: 0, loopDelayP99Us: 0 });
  return {
    server: 's',
    url: 'tcp://127.0.0.1:1',
    software: 'x',
    protocol: '1.4',
    durationMs: 1000,
    startedAtMs: 0,
    totals: rec.totals,
    generator: { lagP99Us: lagMs * 1000, lagMaxUs: lagMs * 1000, loopDelayP99Ms: opts.loopMs ?? 1.1, cpuUtilisation: 0.1, atRisk: 0, judged: 100, bound: opts.bound, reasons: [] },
    refused: 0,
    firstRefusedAtMs: null,
    onsetMs: {},
    intervals: 1,
    lateReplies: 0,
    status: 'completed',
  };
}

const runner = { stopped: false } as unknown as LoadRunner;
const search = (failing: Promise<ServerResult>) =>
  findMax(runner, { name: 's', profile: 'generic', host: '127.0.0.1', port: 1, tls: false }, o, (rate) => (rate < 200 ? step(rate, 5, 0.05, { bound: false }) : failing), () => undefined);

test('a step failing on service time alone is the server\'s limit, though its generator was late', async () => {
  const r = await search(step(200, 300, 20, { bound: true }));
  expect(r.limitedBy).toBe('server');
  expect(r.maxSustainableRate).toBe(100);
  expect(r.steps[1]).toMatchObject({ generatorBound: true, failsOnServerAlone: true, passed: false });
  expect(r.statement).toMatch(/^s: max sustainable throughput 100\/s under p99<100ms \(next step 200\/s failed: p99 320\.\d ms > 100 ms; service time alone p99 300\.\d ms > 100 ms \+ the loop's delay p99 1\.1 ms\)$/);
});

test('a step failing only with the generator\'s lag in it is the generator\'s limit', async () => {
  // 60 ms in the server, 60 ms late: over the SLO only with our own lateness added.
  const r = await search(step(200, 60, 60, { bound: true }));
  expect(r.limitedBy).toBe('generator');
  expect(r.steps[1].failsOnServerAlone).toBe(false);
  expect(r.statement).toMatch(/the generator, not the server, fell behind at 200\/s/);
});

test('service time over the SLO by less than the loop\'s delay is not the server\'s alone; errors alone are', async () => {
  expect((await search(step(200, 120, 5, { bound: true, loopMs: 30 }))).limitedBy).toBe('generator');
  const timeouts = await search(step(200, 5, 1, { bound: true, timeouts: 10 }));
  expect(timeouts.limitedBy).toBe('server');
  expect(timeouts.steps[1].failsOnServerAlone).toBe(true);
});

describe('a server that goes down, or a stop, between steps: the steps run so far are kept', () => {
  const target = { name: 's', profile: 'generic' as const, host: '127.0.0.1', port: 1, tls: false };
  const bisecting = { ...o, bisectSteps: 2 };

  const refused = () => Promise.reject(new UnitsNotOpened('server s (tcp://127.0.0.1:1): cannot open 8 connections: connect ECONNREFUSED', true));

  test('a later step that cannot connect, tried again after a pause, fails as not started; the search ends there (no bisect) as the server going down', async () => {
    const rates: number[] = [];
    const r = await findMax(runner, target, bisecting, (rate) => {
      rates.push(rate);
      return rate < 200 ? step(rate, 5, 0.05, { bound: false }) : refused();
    }, () => undefined);
    expect(rates).toEqual([100, 200, 200]);
    expect(r.steps[1]).toMatchObject({ step: 1, targetRate: 200, achievedRate: 0, passed: false, notStarted: true, failsOnServerAlone: false, why: 'server s (tcp://127.0.0.1:1): cannot open 8 connections: connect ECONNREFUSED' });
    expect(r).toMatchObject({ limitedBy: 'server-down', maxSustainableRate: 100 });
    expect(r.statement).toBe('s: went down during the search: step 1 (200/s) could not start (server s (tcp://127.0.0.1:1): cannot open 8 connections: connect ECONNREFUSED); highest rate passed before it: 100/s under p99<100ms');
    expect(stepLine(target, r.steps[1], o)).toBe('s step 1 (ramp) 200/s: not started, nothing sent → FAIL (server s (tcp://127.0.0.1:1): cannot open 8 connections: connect ECONNREFUSED)');
  });

  test('a connection refused once and then taken (a cap still counting the last step\'s sockets) is no outage: the step runs', async () => {
    let refusals = 0;
    const r = await findMax(runner, target, o, (rate) => (rate === 200 && refusals++ === 0 ? refused() : step(rate, 5, 0.05, { bound: false })), () => undefined);
    expect(refusals).toBe(2);
    expect(r.steps.every((s) => !s.notStarted)).toBe(true);
    expect(r.limitedBy).toBe('max-rate');
  });

  test('after a warm-up, a first ramp step that cannot start: no rate passed, and the statement does not judge the start rate', async () => {
    const r = await findMax(runner, target, { ...o, warmupMs: 1000 }, (rate, _ms, n) => (n === 0 ? step(rate, 5, 0.05, { bound: false }) : refused()), () => undefined);
    expect(r.steps.map((s) => [s.phase, s.notStarted ?? false])).toEqual([
      ['warmup', false],
      ['ramp', true],
    ]);
    expect(r).toMatchObject({ limitedBy: 'server-down', maxSustainableRate: null });
    expect(r.statement).toMatch(/^s: went down during the search: step 1 \(100\/s\) could not start \(.*\); highest rate passed before it: none under p99<100ms$/);
  });

  test('going down in the bisect keeps the failure measured before it in the statement', async () => {
    // 100 and 200 pass, 400 fails on its latency, the bisect's 300 cannot start.
    const r = await findMax(runner, target, bisecting, (rate) => (rate <= 200 ? step(rate, 5, 0.05, { bound: false }) : rate === 400 ? step(400, 300, 0.05, { bound: false }) : refused()), () => undefined);
    expect(r.steps.map((s) => [s.targetRate, s.passed, s.notStarted ?? false])).toEqual([
      [100, true, false],
      [200, true, false],
      [400, false, false],
      [300, false, true],
    ]);
    expect(r).toMatchObject({ limitedBy: 'server-down', maxSustainableRate: 200 });
    expect(r.statement).toMatch(/^s: went down during the search: step 3 \(300\/s\) could not start \(.*\); highest rate passed before it: 200\/s under p99<100ms; 400\/s had failed \(p99 300\.\d ms > 100 ms\)$/);
  });

  test('a later step refused again by a server that still takes some connections (a per-address cap) is the run\'s error, as before', async () => {
    const capped = new UnitsNotOpened('server s (tcp://127.0.0.1:1): cannot open 8 connections: connection closed', false);
    await expect(findMax(runner, target, bisecting, (rate) => (rate < 200 ? step(rate, 5, 0.05, { bound: false }) : Promise.reject(capped)), () => undefined)).rejects.toBe(capped);
  });

  test('a stop while a later step connects ends the search as interrupted, with the steps so far', async () => {
    const stopping = { stopped: false } as { stopped: boolean };
    const r = await findMax(stopping as unknown as LoadRunner, target, bisecting, (rate) => {
      if (rate < 200) return step(rate, 5, 0.05, { bound: false });
      stopping.stopped = true;
      return Promise.reject(new LoadStopped());
    }, () => undefined);
    expect(r.steps.map((s) => s.targetRate)).toEqual([100]);
    expect(r).toMatchObject({ limitedBy: 'interrupted', maxSustainableRate: 100 });
  });

  test('before any step ran, an unreachable server or a stop is the run\'s: thrown as before', async () => {
    await expect(findMax(runner, target, o, () => Promise.reject(new UnitsNotOpened('server s: cannot open 8 connections', true)), () => undefined)).rejects.toThrow(UnitsNotOpened);
    await expect(findMax(runner, target, o, () => Promise.reject(new LoadStopped()), () => undefined)).rejects.toThrow(LoadStopped);
  });
});
