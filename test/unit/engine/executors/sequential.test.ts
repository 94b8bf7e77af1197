/**
 * The sequential executor alone, over an in-memory plan whose units are timers: what it starts,
 * how many at once (in all, or per server), and what a stop leaves. The bench and wallet bench
 * that run on it are tested against servers in test/unit/bench/runner.test.ts and the lab tier.
 */
import { RunClock } from '../../../../src/engine/run-clock';
import type { PlanBatch, PlanContext, PlanPart } from '../../../../src/engine/iteration';
import { planExecutorFor, planProblemsOf } from '../../../../src/engine/executors/registry';
import type { SequentialPlan } from '../../../../src/engine/executors/sequential';
import { MAX_DEFER_MS, spareMoment } from '../../../../src/core/spare-time';

interface Unit {
  pass: number;
  warmup: boolean;
  server: number;
  index: number;
}

/** A plan of `perServer` units per server per pass, each unit lasting `ms(server)` ms. */
function timerPlan(servers: number, perServer: number, ms: (server: number) => number) {
  const started: Unit[] = [];
  const inFlight = Array.from({ length: servers }, () => 0);
  const most = { all: 0, perServer: Array.from({ length: servers }, () => 0) };
  const ctx: PlanContext = {
    clock: new RunClock(process.hrtime.bigint()),
    servers,
    batch(part: PlanPart): PlanBatch {
      // Servers interleaved unit by unit, as a bench's address order has them.
      const units: Unit[] = [];
      for (let index = 0; index < perServer; index++) {
        for (let server = 0; server < servers; server++) {
          if (part.server === undefined || part.server === server) units.push({ pass: part.pass, warmup: part.warmup, server, index });
        }
      }
      let next = 0;
      return {
        size: 0,
        oldestNs: Infinity,
        get more() {
          return next < units.length;
        },
        add(_intendedNs, whenDone) {
          const unit = units[next++];
          started.push(unit);
          inFlight[unit.server]++;
          most.perServer[unit.server] = Math.max(most.perServer[unit.server], inFlight[unit.server]);
          most.all = Math.max(most.all, inFlight.reduce((a, b) => a + b, 0));
          setTimeout(() => {
            inFlight[unit.server]--;
            whenDone?.(true);
          }, ms(unit.server));
          return true;
        },
        flush() {},
      };
    },
  };
  return { ctx, started, most, inFlight };
}

const plan = (extra: Partial<SequentialPlan>): SequentialPlan => ({ kind: 'sequential', passes: 2, warmup: 1, concurrency: 1, ...extra });

test('validate names every problem at once, each with its option and the value given', () => {
  expect(planProblemsOf(plan({ passes: 0, warmup: -1, concurrency: 1.5 }))).toEqual([
    '--passes must be an integer > 0, got 0',
    '--warmup must be an integer >= 0, got -1',
    '--concurrency must be an integer > 0, got 1.5',
  ]);
  expect(planProblemsOf(plan({ passes: 3, warmup: 3, concurrency: 0 }))).toEqual([
    '--concurrency must be an integer > 0, got 0',
    '--warmup (3) must be smaller than --passes (3)',
  ]);
  // A bad count is not compared as well: one problem, not two.
  expect(planProblemsOf(plan({ passes: 2.5, warmup: 3 }))).toEqual(['--passes must be an integer > 0, got 2.5']);
  expect(planProblemsOf(plan({ passes: 10, warmup: 0, concurrency: 8 }))).toEqual([]);
});

test('the pacing is described with the strings runs have always stored', () => {
  const seq = planExecutorFor(plan({}));
  expect(seq.describe(plan({ concurrency: 1 }), 3)).toBe('sequential');
  expect(seq.describe(plan({ concurrency: 4 }), 1)).toBe('closed-loop x4');
  expect(seq.describe(plan({ concurrency: 4 }), 2)).toBe('closed-loop x4 per server');
});

test('concurrency 1 runs every planned unit once, one at a time, pass by pass, warm-up flagged', async () => {
  const p = timerPlan(2, 10, () => 1);
  await planExecutorFor(plan({ passes: 3, warmup: 1 })).create(p.ctx, plan({ passes: 3, warmup: 1 })).run();
  expect(p.started).toHaveLength(3 * 2 * 10);
  expect(new Set(p.started.map((u) => `${u.pass}/${u.server}/${u.index}`)).size).toBe(60);
  expect(p.most.all).toBe(1);
  expect(p.started.map((u) => u.pass)).toEqual([...p.started.map((u) => u.pass)].sort((a, b) => a - b));
  expect(p.started.filter((u) => u.warmup).every((u) => u.pass === 0)).toBe(true);
  expect(p.started.filter((u) => u.warmup)).toHaveLength(20);
});

test('concurrency N runs N units per server at most, and reaches N on a slow server and a fast one alike', async () => {
  const p = timerPlan(2, 24, (server) => (server === 0 ? 2 : 20));
  const c = plan({ passes: 2, warmup: 0, concurrency: 4 });
  await planExecutorFor(c).create(p.ctx, c).run();
  expect(p.started).toHaveLength(2 * 2 * 24);
  expect(new Set(p.started.map((u) => `${u.pass}/${u.server}/${u.index}`)).size).toBe(96);
  expect(p.most.perServer).toEqual([4, 4]);
  expect(p.inFlight).toEqual([0, 0]);
});

test('a plan smaller than the workers runs each unit once and resolves', async () => {
  const p = timerPlan(1, 3, () => 1);
  const c = plan({ passes: 1, warmup: 0, concurrency: 8 });
  await planExecutorFor(c).create(p.ctx, c).run();
  expect(p.started).toHaveLength(3);
});

test('a stop mid-plan starts nothing more, and the executor resolves once the units in flight end', async () => {
  const p = timerPlan(2, 50, () => 5);
  const c = plan({ passes: 4, warmup: 1, concurrency: 3 });
  const pacer = planExecutorFor(c).create(p.ctx, c);
  const running = pacer.run();
  await new Promise((r) => setTimeout(r, 60));
  pacer.stop();
  const atStop = p.started.length;
  expect(atStop).toBeGreaterThan(0);
  expect(atStop).toBeLessThan(4 * 2 * 50);
  await running;
  expect(p.started).toHaveLength(atStop);
  expect(p.inFlight).toEqual([0, 0]);
  expect(pacer.vusAt(0)).toBe(0);
});

/**
 * Bookkeeping that waits for spare moments while `pacer` runs: what was in flight when each step
 * ran, and of the steps given a moment (not let go by the bound on the wait, src/core/spare-time.ts:
 * a pause of a loaded machine longer than that lets a step go while a unit is in flight, as it should).
 */
async function stepsDuring(p: ReturnType<typeof timerPlan>, c: SequentialPlan): Promise<{ queued: number; inFlightAtStep: number[]; inFlightAtMoment: number[] }> {
  const inFlightAtStep: number[] = [];
  const inFlightAtMoment: number[] = [];
  let queued = 0;
  const step = async () => {
    const askedAt = performance.now();
    await spareMoment();
    const letGo = performance.now() - askedAt >= MAX_DEFER_MS - 1;
    // A step goes on for a few microtask hops after its moment: all of it before the next unit.
    for (let hop = 0; hop < 5; hop++) await null;
    const inFlight = p.inFlight.reduce((a, b) => a + b, 0);
    inFlightAtStep.push(inFlight);
    if (!letGo) inFlightAtMoment.push(inFlight);
  };
  const ticker = setInterval(() => {
    queued++;
    void step();
  }, 3);
  await planExecutorFor(c).create(p.ctx, c).run();
  clearInterval(ticker);
  await new Promise((r) => setTimeout(r, 50)); // the steps still waiting when the plan ended
  return { queued, inFlightAtStep, inFlightAtMoment };
}

test('one unit in flight in all: bookkeeping waiting for a spare moment runs between units, never while one is in flight', async () => {
  const { queued, inFlightAtStep, inFlightAtMoment } = await stepsDuring(timerPlan(2, 15, () => 4), plan({ passes: 2, warmup: 0 }));
  expect(queued).toBeGreaterThan(10);
  expect(inFlightAtStep).toHaveLength(queued);
  // Units of 4 ms: a step waits a few ms for the gap after the one in flight, far under the bound.
  expect(inFlightAtMoment.length).toBeGreaterThan(queued / 2);
  expect(inFlightAtMoment.filter((n) => n > 0)).toEqual([]);
});

test('with more in flight no moment is free: the bookkeeping still runs, after its bounded wait', async () => {
  const { queued, inFlightAtStep } = await stepsDuring(timerPlan(1, 40, () => 4), plan({ passes: 2, warmup: 0, concurrency: 2 }));
  expect(queued).toBeGreaterThan(10);
  expect(inFlightAtStep).toHaveLength(queued);
  expect(inFlightAtStep.some((n) => n > 0)).toBe(true);
});
