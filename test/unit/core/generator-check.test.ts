/**
 * The one generator check, judged on what it claims: a unit is at risk when the generator's own
 * delay is a material share of that unit's latency. A quiet run at a low rate is not flagged; a run
 * whose generator is starved (the test blocks the event loop 50 ms in every 100) is, with its reason.
 */
import { generatorVerdict, unitAtRisk } from '../../../src/core/generator-check';
import { LoadRunner, type LoadOptions } from '../../../src/engine/runner';
import { summarise } from '../../../src/engine/summary';
import { summaryText } from '../../../src/load/summary';
import { startMisbehavingServerProcess } from '../../support/misbehaving-server';
import { syntheticLines } from '../../support/synthetic-lines';
import { loadOptions, localTarget } from '../../support/load-options';

test('a delay is judged against the latency it is part of, above the floor of any client’s own work', () => {
  expect(unitAtRisk(1.5, 30)).toBe(false); // 1.5 ms of lag beside 30 ms answers: what the old 1 ms limit flagged
  expect(unitAtRisk(1.5, 3)).toBe(true);
  expect(unitAtRisk(0.08, 0.2)).toBe(false); // under the noise floor
  expect(generatorVerdict(1, 100, 'requests', 'went out late')).toEqual({ bound: false, reasons: [] });
  const v = generatorVerdict(2, 100, 'requests', 'went out late');
  expect(v.bound).toBe(true);
  expect(v.reasons[0]).toBe("2 of 100 requests (2.0%) went out late for more than 10% of their latency: p99 and above may be partly the generator's own time");
  expect(generatorVerdict(20, 100, 'requests', 'x').reasons[0]).toMatch(/p90 and above/);
  expect(generatorVerdict(60, 100, 'requests', 'x').reasons[0]).toMatch(/even the medians/);
});

const lines = syntheticLines(10, 'g');

// In its own process (the starved loop is the generator's alone), answering in ~200 ms, as a real
// server's history call of a busy address might: a few ms of the host's scheduling are not material.
// The quiet open run's server answers in 2 s: at 200 ms, one pause of 50 ms of this process (a busy
// machine) made two requests of 150 late by 10% of their latency, and the quiet run read as bound.
const STARVED_ANSWER_MS = 200;
const QUIET_ANSWER_MS = 2000;
let srv: { port: number; close(): void } | undefined;
async function serverAnsweringIn(delayMs: number): Promise<void> {
  srv = await startMisbehavingServerProcess({ nullResults: true, delayMs });
}
afterEach(() => {
  srv?.close();
  srv = undefined;
});

function options(): LoadOptions {
  return loadOptions([localTarget(srv!.port)], lines, { model: { kind: 'rate', rate: 50 }, durationMs: 3000, pipeline: 64, seed: 'g' });
}

function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* the generator's loop is held: nothing is sent or read meanwhile */
  }
}

test('a quiet run at 50 requests/s is not generator-bound', async () => {
  await serverAnsweringIn(QUIET_ANSWER_MS);
  const runner = new LoadRunner(options());
  const r = await runner.runServer(runner['opts'].servers[0], 0);
  expect(r.totals.byOutcome.get('ok')).toBe(150);
  expect(r.generator).toMatchObject({ bound: false, reasons: [] });
  // The share it is judged on is said all the same: every request judged, at most 1 % delayed.
  expect(r.generator.judged).toBe(150);
  expect(r.generator.atRisk).toBeLessThanOrEqual(1);
});

test('a starved generator (its loop blocked 50 ms in every 100) is generator-bound, and says why', async () => {
  await serverAnsweringIn(STARVED_ANSWER_MS);
  const runner = new LoadRunner(options());
  const starve = setInterval(() => blockLoop(50), 100);
  try {
    const r = await runner.runServer(runner['opts'].servers[0], 0);
    expect(r.generator.bound).toBe(true);
    expect(r.generator.reasons.join('\n')).toMatch(/^\d+ of \d+ requests \(\d+\.\d%\) went out late \(scheduling lag\) for more than 10% of their latency: (p90 and above|even the medians) may be partly the generator's own time$/);
    // The summary says the same count, of the same requests, as the reason does.
    const [, atRisk, judged] = /^(\d+) of (\d+) /.exec(r.generator.reasons[0])!;
    expect([r.generator.atRisk, r.generator.judged]).toEqual([Number(atRisk), Number(judged)]);
    expect(summaryText([summarise(r)], [], 1, 'x.sqlite')).toContain(`CPU ${(r.generator.cpuUtilisation * 100).toFixed(0)}% of one core; ${atRisk} of ${judged} (`);
  } finally {
    clearInterval(starve);
  }
});

// A closed model sends each request the moment its user is free, so nothing goes out late: a busy
// generator shows as replies waiting on its loop, judged by the loop's delay against the latency.
const closed = (): LoadOptions => ({ ...options(), model: { kind: 'vus', vus: 4, thinkTimeMs: 0 }, connections: 4 });

test('a quiet closed-model run is not generator-bound', async () => {
  // Judged by loop delay p99 over the run: it takes a busy stretch, not one pause, to pass 20 ms.
  await serverAnsweringIn(STARVED_ANSWER_MS);
  const runner = new LoadRunner(closed());
  const r = await runner.runServer(runner['opts'].servers[0], 0);
  expect(r.totals.byOutcome.get('ok')).toBeGreaterThan(40);
  expect(r.generator).toMatchObject({ bound: false, reasons: [] });
});

test('a starved closed-model run (its loop blocked 50 ms in every 100) is generator-bound, by its loop delay', async () => {
  await serverAnsweringIn(STARVED_ANSWER_MS);
  const runner = new LoadRunner(closed());
  const starve = setInterval(() => blockLoop(50), 100);
  try {
    const r = await runner.runServer(runner['opts'].servers[0], 0);
    expect(r.generator.bound).toBe(true);
    expect(r.generator.reasons.join('\n')).toMatch(/^event-loop delay p99 \d+\.\d\d ms \(\d+\.\d\d ms beyond the monitor's 1 ms period\) is over 10% of the median latency \d+\.\d\d ms: in a closed model/);
  } finally {
    clearInterval(starve);
  }
});
