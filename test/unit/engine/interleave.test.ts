/**
 * An interleaved load run (`load --interleave`) against local null responders: the turns' schedule
 * (rounds of one turn per server, every other one reversed, the whole model for each), the turns run
 * as segments of one run per server on connections kept open from its first turn to its last, the
 * same requests for every server in a round, and each server's turns merged into one result whose
 * every figure is the turns' added up: units, outcomes, time loaded, HDR percentiles. A stop ends
 * the run after the turn under way; a server gone between its turns is an outage, not a failure.
 */
import * as hdr from 'hdr-histogram-js';
import { LoadOptions, LoadRunner, type ServerResult } from '../../../src/engine/runner';
import { serversInTurns, turnSchedule } from '../../../src/engine/interleave';
import { summarise } from '../../../src/engine/summary';
import { sumOf } from '../../../src/engine/sinks/hdr-intervals';
import { histogramLine } from '../../../src/core/percentile-line';
import type { IntervalRecord } from '../../../src/core/load-types';
import { startMisbehavingServer, Misbehaving } from '../../support/misbehaving-server';
import { syntheticLines } from '../../support/synthetic-lines';
import { loadOptions, localTarget } from '../../support/load-options';

const servers: Misbehaving[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(): Promise<Misbehaving> {
  const s = await startMisbehavingServer({ nullResults: true });
  servers.push(s);
  return s;
}

const lines = syntheticLines(50, 'i');

/** Room for a second of a pause of this process, which holds the servers' answers too: nothing dropped. */
function options(ports: number[], extra: Partial<LoadOptions> = {}): LoadOptions {
  return loadOptions(
    ports.map((port, i) => localTarget(port, 'ab'[i])),
    lines,
    { durationMs: 3000, pipeline: 64, timeoutMs: 2000, ...extra },
  );
}

interface Seen {
  server: string;
  record: IntervalRecord;
  step: number | null;
  samples: Array<{ intendedUs: number; method: string }>;
}

async function interleaved(opts: LoadOptions, turnMs: number, during?: (runner: LoadRunner) => void) {
  const runner = new LoadRunner(opts);
  const seen: Seen[] = [];
  runner.on('interval', (e: Seen) => seen.push(e));
  during?.(runner);
  const done = await serversInTurns(runner, opts.servers, { totalMs: opts.durationMs, turnMs }, { server: () => undefined });
  return { runner, done, seen };
}

const decode = (b64: string) => hdr.decodeFromCompressedBase64(b64, 32, false);

describe('the schedule of turns', () => {
  test('two servers: rounds of one turn each, every other round reversed; each server gets the whole length', () => {
    const turns = turnSchedule(2, 10_000, 3000);
    expect(turns.map((t) => `${'AB'[t.server]}${t.round}:${t.durationMs}`)).toEqual(['A0:3000', 'B0:3000', 'B1:3000', 'A1:3000', 'A2:3000', 'B2:3000', 'B3:1000', 'A3:1000']);
    for (const s of [0, 1]) expect(turns.filter((t) => t.server === s).reduce((n, t) => n + t.durationMs, 0)).toBe(10_000);
  });

  test('three servers: A B C, then C B A; a round is one turn of each', () => {
    const turns = turnSchedule(3, 4000, 2000);
    expect(turns.map((t) => `${'ABC'[t.server]}${t.round}`)).toEqual(['A0', 'B0', 'C0', 'C1', 'B1', 'A1']);
  });

  test('over the rounds each server comes first as often as second: a drift that grows with time favours neither', () => {
    const turns = turnSchedule(2, 60_000, 5000);
    // Slot k of the run at time k: A's and B's mean slot are the same.
    const meanSlot = (s: number) => turns.flatMap((t, k) => (t.server === s ? [k] : [])).reduce((a, k, _, all) => a + k / all.length, 0);
    expect(meanSlot(0)).toBeCloseTo(meanSlot(1), 9);
  });
});

test('two servers in turns: every turn a segment of its server on one second count, the round its step, the turns merged into one true summary', async () => {
  const [a, b] = [await server(), await server()];
  const { done, seen } = await interleaved(options([a.port, b.port], { durationMs: 3000, samples: true }), 1000);
  expect(done.failure).toBeUndefined();
  expect(done.turns.map((t) => t.length)).toEqual([3, 3]);
  // In time: A B, B A, A B.
  const order = done.turns.flatMap((turns, i) => turns.map((r) => ({ who: 'ab'[i], at: r.startedAtMs }))).sort((x, y) => x.at - y.at);
  expect(order.map((o) => o.who).join('')).toBe('abbaab');
  // Connections opened once per server, at its first turn, not once per turn.
  expect(a.connections).toBe(2);
  expect(b.connections).toBe(2);

  for (const [i, name] of ['a', 'b'].entries()) {
    const merged = done.results[i];
    const turns = done.turns[i];
    const mine = seen.filter((e) => e.server === name);
    // Seconds numbered on from turn to turn, each carrying its round.
    const indexes = mine.map((e) => e.record.index);
    expect([...indexes].sort((x, y) => x - y)).toEqual(indexes);
    expect(new Set(indexes).size).toBe(indexes.length);
    expect(mine.map((e) => e.step).filter((s, k, all) => all.indexOf(s) === k)).toEqual([0, 1, 2]);

    const s = summarise(merged);
    expect(merged.status).toBe('completed');
    expect(s.sent).toBe(300);
    expect(s.scheduled).toBe(300);
    expect(s.outcomes).toEqual({ ok: 300 });
    // Loaded for the turns' schedules, not the other server's turns between them.
    expect(merged.durationMs).toBe(turns.reduce((n, r) => n + r.durationMs, 0));
    expect(merged.durationMs).toBeGreaterThanOrEqual(2990);
    expect(merged.durationMs).toBeLessThanOrEqual(3010);
    expect(s.achievedRps).toBeCloseTo(100, -1);
    expect(merged.intervals).toBe(turns.reduce((n, r) => n + r.intervals, 0));
    // Percentiles from the turns' histograms added up: the same as the stored seconds' added up.
    const stored = sumOf(mine.flatMap((e) => e.record.cells.filter((c) => c.outcome === 'ok' && c.latency !== null).map((c) => decode(c.latency!))));
    expect(merged.totals.latency.totalCount).toBe(300);
    const line = histogramLine(stored, 1000);
    expect([s.latencyMs.p50, s.latencyMs.p90, s.latencyMs.p99]).toEqual([line.p50, line.p90, line.p99]);
    // The max kept in memory is exact; a stored histogram's, within its 3 significant digits.
    expect(s.latencyMs.max! / line.max!).toBeCloseTo(1, 2);
    expect(merged.generator.reasons.length > 0).toBe(merged.generator.bound);
  }

  // One request sequence, continued turn to turn: in each round A and B were asked the same methods in the same order.
  const methodsOf = (name: string, step: number) =>
    seen
      .filter((e) => e.server === name && e.step === step)
      .flatMap((e) => e.samples)
      .sort((x, y) => x.intendedUs - y.intendedUs)
      .map((x) => x.method);
  for (const step of [0, 1, 2]) {
    expect(methodsOf('a', step)).toHaveLength(100);
    expect(methodsOf('b', step)).toEqual(methodsOf('a', step));
  }
  expect(methodsOf('a', 1)).not.toEqual(methodsOf('a', 0));
}, 30_000);

test('Poisson arrivals in turns: in a round both servers get the same arrival times; each round the next window of the process, not the first again', async () => {
  const [a, b] = [await server(), await server()];
  const model = { kind: 'poisson-arrival-rate' as const, rate: 100, seed: 'interleaved' };
  const { done, seen } = await interleaved(options([a.port, b.port], { durationMs: 3000, samples: true, model }), 1000);
  expect(done.failure).toBeUndefined();
  const intendedOf = (name: string, step: number) =>
    seen
      .filter((e) => e.server === name && e.step === step)
      .flatMap((e) => e.samples)
      .map((x) => x.intendedUs)
      .sort((x, y) => x - y);
  const rounds = [0, 1, 2].map((step) => intendedOf('a', step));
  for (const step of [0, 1, 2]) {
    expect(rounds[step].length).toBeGreaterThan(50);
    expect(intendedOf('b', step)).toEqual(rounds[step]);
  }
  expect(rounds[1]).not.toEqual(rounds[0]);
  expect(rounds[2]).not.toEqual(rounds[0]);
  // Every arrival of every window one outcome.
  for (const i of [0, 1]) expect(summarise(done.results[i]).scheduled).toBe(rounds.reduce((n, r) => n + r.length, 0));
}, 30_000);

test('a stop during a turn ends the run after it: what was measured stands, a server with turns to come is interrupted, every unit one outcome', async () => {
  const [a, b] = [await server(), await server()];
  let turnsStarted = 0;
  // Turns of 2 s, stopped 1 s in: a late timer on a busy machine still stops it within the turn.
  const { done } = await interleaved(options([a.port, b.port], { durationMs: 8000 }), 2000, (runner) =>
    runner.on('server-start', () => {
      // B's second turn (A B, B …): stopped half-way.
      if (++turnsStarted === 3) setTimeout(() => runner.stop(), 1000);
    }),
  );
  expect(done.failure).toBeUndefined();
  expect(done.turns.map((t) => t.length)).toEqual([1, 2]);
  for (const r of done.results) {
    expect(r.status).toBe('interrupted');
    const s = summarise(r);
    expect(Object.values(s.outcomes).reduce((x, y) => x + y, 0)).toBe(s.scheduled);
  }
  expect(summarise(done.results[0]).scheduled).toBe(200);
  // B's stopped turn: its unsent part is not-sent, not lost.
  const b2 = summarise(done.results[1]);
  expect(b2.scheduled).toBe(400);
  expect(b2.outcomes['not-sent']).toBeGreaterThan(0);
}, 30_000);

test('a server gone while the other had its turn: an outage in its next turn, on its first turn\'s clock, and the run goes on', async () => {
  const [a, b] = [await server(), await server()];
  let restarted: Promise<unknown> | undefined;
  let aTurns = 0;
  // Turns of 2 s: the pool's reconnect backs off up to a second, and a busy machine's slow turn
  // change must not push the reconnect past a 1 s turn's end.
  const { done } = await interleaved(options([a.port, b.port], { durationMs: 6000, timeoutMs: 1000 }), 2000, (runner) =>
    runner.on('server-start', ({ server: name }: { server: string }) => {
      if (name !== 'a') return;
      // Before A's second turn, its server goes away; it is back 400 ms into that turn.
      if (++aTurns === 1) setTimeout(() => void a.close(), 2100);
      if (aTurns === 2) restarted = new Promise((r) => setTimeout(r, 400)).then(() => startMisbehavingServer({ nullResults: true, port: a.port }).then((s) => servers.push(s)));
    }),
  );
  await restarted;
  expect(done.failure).toBeUndefined();
  expect(done.turns.map((t) => t.length)).toEqual([3, 3]);
  const [ra] = done.results as ServerResult[];
  const s = summarise(ra);
  expect(s.scheduled).toBe(600);
  expect(Object.values(s.outcomes).reduce((x, y) => x + y, 0)).toBe(600);
  expect(s.errors.disconnect).toBeGreaterThan(0);
  expect(s.outages).toHaveLength(1);
  const [o] = s.outages;
  // A's second turn began about 3 turns in (A, B, B); the outage is within it, and ended.
  const secondTurnS = (done.turns[0][1].startedAtMs - done.turns[0][0].startedAtMs) / 1000;
  expect(o.startS).toBeGreaterThanOrEqual(secondTurnS - 0.01);
  expect(o.endS).not.toBeNull();
  expect(o.endS!).toBeLessThan(secondTurnS + 2);
  expect(s.stoppedAnswering).toBeNull();
  expect(summarise(done.results[1]).outcomes).toEqual({ ok: 600 });
}, 30_000);

