/**
 * poisson-arrival-rate, added as one file and one registry line: its schedule is a Poisson process
 * (counts and gaps within statistical bounds), the same for the same seed, split exactly over
 * shards; its config's problems come all at once; and the rest of the toolkit takes it without
 * having learnt it: `load` chooses it by its flag, runs it, stores its words, and merges its shards.
 *
 * The bounds below are ones a true Poisson process at the rate breaks with probability about
 * 1e-4 or less per check, so a failure means the schedule is wrong, not unlucky; the seeds are
 * fixed, so the test gives the same answer every run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { arrivalOffsetsNs } from '../../../../src/engine/arrival-driver';
import { poissonArrivals, type PoissonArrivalRate } from '../../../../src/engine/executors/poisson-arrival-rate';
import { executorFor, isLoadModelKind, problemsOf } from '../../../../src/engine/executors/registry';
import { LoadRunner } from '../../../../src/engine/runner';
import { summarise } from '../../../../src/engine/summary';
import { loadArgs } from '../../../../src/cli/load';
import { arrivalModel, loadPlan } from '../../../../src/cli/load-plan';
import type { IntervalRecord } from '../../../../src/core/load-types';
import { startMisbehavingServer, startMisbehavingServerProcess } from '../../../support/misbehaving-server';
import { syntheticLines } from '../../../support/synthetic-lines';
import { loadOptions, localTarget } from '../../../support/load-options';
import { cli } from '../../../support/cli';
import { exitOf, spawnCommand } from '../../../support/command-process';

const model = (rate: number, seed = 'electrum-bench'): PoissonArrivalRate => ({ kind: 'poisson-arrival-rate', rate, seed });
const schedule = (m: PoissonArrivalRate, durationMs: number, shard?: { index: number; count: number }) => [...arrivalOffsetsNs(poissonArrivals(m, durationMs, shard))];

describe('the schedule', () => {
  // 100/s over 100 s: about 10,000 arrivals, enough for every bound below to be tight.
  const RATE = 100;
  const SECONDS = 100;

  test.each(['electrum-bench', 'a', 'b'])('seed %s: arrivals of a Poisson process at the rate', (seed) => {
    const t = schedule(model(RATE, seed), SECONDS * 1000);
    // Arrivals in [0, T) of a Poisson process: Poisson(λT) = Poisson(10,000), sd 100; ±4.5 sd.
    expect(t.length).toBeGreaterThan(9550);
    expect(t.length).toBeLessThan(10450);
    expect(t.every((x, i) => x < SECONDS * 1e9 && (i === 0 || x >= t[i - 1]))).toBe(true);

    // Gaps, in units of the mean gap 1/λ, are Exp(1).
    const gaps = t.map((x, i) => ((x - (i ? t[i - 1] : 0)) * RATE) / 1e9);
    const n = gaps.length;
    const share = (p: (g: number) => boolean) => gaps.filter(p).length / n;
    // P(gap > 1) = e^-1 ≈ 0.368 (sd √(p(1−p)/n) ≈ 0.0048); P(gap < 0.1) = 1 − e^-0.1 ≈ 0.095 (sd ≈ 0.0029); ±4.5 sd.
    expect(Math.abs(share((g) => g > 1) - Math.exp(-1))).toBeLessThan(0.022);
    expect(Math.abs(share((g) => g < 0.1) - (1 - Math.exp(-0.1)))).toBeLessThan(0.0135);
    // Kolmogorov–Smirnov against Exp(1): √n·D exceeds 2.3 with probability about 5e-5.
    const sorted = [...gaps].sort((a, b) => a - b);
    const d = Math.max(...sorted.map((g, i) => Math.max(Math.abs(1 - Math.exp(-g) - i / n), Math.abs(1 - Math.exp(-g) - (i + 1) / n))));
    expect(Math.sqrt(n) * d).toBeLessThan(2.3);

    // Counts per second scatter as Poisson counts do (variance ≈ mean; constant-arrival-rate's
    // metronome gives 0): over 100 seconds the ratio is about χ²(99)/99, outside [0.5, 1.73] with
    // probability about 1e-5 each side.
    const perSecond = new Array<number>(SECONDS).fill(0);
    for (const x of t) perSecond[Math.floor(x / 1e9)]++;
    const mean = perSecond.reduce((a, b) => a + b, 0) / SECONDS;
    const variance = perSecond.reduce((a, b) => a + (b - mean) ** 2, 0) / (SECONDS - 1);
    expect(variance / mean).toBeGreaterThan(0.5);
    expect(variance / mean).toBeLessThan(1.73);
  });

  test('the same seed gives the same arrival times; another seed, others', () => {
    const a = schedule(model(50, 'x'), 20_000);
    expect(schedule(model(50, 'x'), 20_000)).toEqual(a);
    const b = schedule(model(50, 'y'), 20_000);
    expect(b.slice(0, 20)).not.toEqual(a.slice(0, 20));
    // A longer run begins with the shorter one's arrivals: the duration only ends the schedule.
    expect(schedule(model(50, 'x'), 30_000).slice(0, a.length)).toEqual(a);
  });

  test("an interleaved run's turns, one window each, go on through a Poisson process rather than repeat its first window", () => {
    // 100 windows of 1 s at 100/s, each the schedule of its turn as Executor.window gives it.
    const m = model(100, 'turns');
    const executor = executorFor(m);
    expect(executor.window?.(m, 0)).toEqual(m);
    const perWindow = Array.from({ length: 100 }, (_, i) => schedule(executor.window!(m, i), 1000));
    expect(perWindow[0]).toEqual(schedule(m, 1000));
    const counts = perWindow.map((t) => t.length);
    // Together a Poisson count over 100 s: Poisson(10,000), ±4.5 sd; and window to window they
    // scatter as Poisson counts do (repeating the first window would give a variance of 0).
    const total = counts.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(9550);
    expect(total).toBeLessThan(10450);
    const mean = total / counts.length;
    const variance = counts.reduce((a, b) => a + (b - mean) ** 2, 0) / (counts.length - 1);
    expect(variance / mean).toBeGreaterThan(0.5);
    expect(variance / mean).toBeLessThan(1.73);
  });

  test.each([2, 3, 7])('%i shards each send every N-th arrival of the one schedule, and together send it whole', (count) => {
    const whole = schedule(model(300), 10_000);
    const shards = Array.from({ length: count }, (_, i) => schedule(model(300), 10_000, { index: i + 1, count }));
    shards.forEach((mine, i) => expect(mine).toEqual(whole.filter((_, k) => k % count === i)));
    expect(shards.flat().sort((x, y) => x - y)).toEqual(whole);
    const sizes = shards.map((s) => s.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });
});

describe('the executor', () => {
  test('validate names every problem at once', () => {
    expect(problemsOf({ kind: 'poisson-arrival-rate', rate: 0, seed: '' })).toEqual(['--poisson-rate must be a number > 0, got 0', '--arrival-seed must be a non-empty string, got ""']);
    expect(problemsOf(model(Infinity))).toEqual(['--poisson-rate must be a number > 0, got Infinity']);
    expect(problemsOf(model(NaN))).toEqual(['--poisson-rate must be a number > 0, got NaN']);
    expect(problemsOf(model(0.5))).toEqual([]);
  });

  test('describes itself, its shards merge back into the whole, and shards of another seed or rate are not one test', () => {
    const m = model(250, 's1');
    const executor = executorFor(m);
    expect(isLoadModelKind('poisson-arrival-rate')).toBe(true);
    expect(executor.describe(m)).toBe('open, Poisson arrivals averaging 250/s (seed s1)');
    const shares = [1, 2, 3].map((index) => executor.shareOf(m, { index, count: 3 }));
    expect(executor.merge(shares)).toEqual(m);
    expect(executor.mismatch?.(m, shares[2])).toBeUndefined();
    expect(executor.mismatch?.(m, model(250, 's2'))).toBe('arrival seed s2 instead of s1');
    expect(executor.mismatch?.(m, model(125, 's1'))).toBe('Poisson rate 125/s instead of 250/s');
    expect(executor.targetRateAt(m, 1234)).toBe(250);
  });
});

const lines = syntheticLines(10, 'p');

test('the load runner sends exactly its schedule, each arrival one outcome, a shard exactly its share', async () => {
  const s = await startMisbehavingServer({ nullResults: true });
  try {
    const m = model(150, 'runner');
    const run = async (shard?: { index: number; count: number }) => {
      const runner = new LoadRunner(loadOptions([localTarget(s.port)], lines, { model: m, pipeline: 64, shard }));
      const intervals: IntervalRecord[] = [];
      runner.on('interval', ({ record }: { record: IntervalRecord }) => intervals.push(record));
      const summary = summarise(await runner.runServer({ name: 's', profile: 'generic', host: '127.0.0.1', port: s.port, tls: false }, 0));
      return { summary, intervals };
    };
    const whole = await run();
    const due = schedule(m, 2000).length;
    // Every arrival of the schedule ends as one outcome; the null responder answers each one sent.
    expect(whole.summary.scheduled).toBe(due);
    expect(whole.summary.sent + (whole.summary.outcomes.dropped ?? 0)).toBe(due);
    expect(whole.summary.outcomes.ok).toBe(whole.summary.sent);
    expect(whole.intervals[0].targetRate).toBe(150);
    const halves = [await run({ index: 1, count: 2 }), await run({ index: 2, count: 2 })];
    expect(halves.map((h) => h.summary.scheduled)).toEqual([1, 2].map((index) => schedule(m, 2000, { index, count: 2 }).length));
    expect(halves[0].summary.scheduled + halves[1].summary.scheduled).toBe(due);
    expect(halves[0].intervals[0].targetRate).toBe(75); // a shard's share of the rate, as it is recorded
  } finally {
    await s.close();
  }
});

describe('load --poisson-rate', () => {
  const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
  let tmp: string;
  let srv: { port: number; close(): void };
  let dataset: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-poisson-'));
    dataset = path.join(tmp, 'd.jsonl');
    fs.writeFileSync(dataset, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    srv = await startMisbehavingServerProcess({ nullResults: true });
  });
  afterAll(() => {
    srv.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const args = (extra: string[]) => ['--server', `generic@127.0.0.1:${srv.port}`, '--dataset', dataset, '--no-progress', ...extra];
  const query = <T>(db: string, sql: string): T => {
    const d = new Database(db, { readonly: true });
    try {
      return d.prepare(sql).get() as T;
    } finally {
      d.close();
    }
  };

  test('its flag chooses it, with the seed given or the default; --workload takes it for arriving wallets', async () => {
    const plan = async (argv: string[]) => loadPlan(await loadArgs(['--server', 'electrumx', ...argv]).parseAsync()).model;
    expect(await plan(['--poisson-rate', '40'])).toEqual(model(40, 'electrum-bench'));
    expect(await plan(['--poisson-rate', '40', '--arrival-seed', 'monday'])).toEqual(model(40, 'monday'));
    const noted: string[] = [];
    expect(arrivalModel(await loadArgs(['--workload', 'electrum', '--poisson-rate', '2']).parseAsync(), noted)).toEqual({ model: model(2), durationMs: 60_000 });
    expect(noted).toEqual([]);
  });

  test.each([
    [['--poisson-rate', '0', '--duration', '-1'], /^--poisson-rate must be a number > 0, got 0; --duration: cannot parse duration "-1"/],
    [['--poisson-rate', '10', '--rate', '5'], /^give exactly one load model: .*--poisson-rate R \(got --rate, --poisson-rate\)$/],
    [['--poisson-rate', 'often'], /--poisson-rate must be a number, got "often"/],
    [['--poisson-rate', '10', '--arrival-seed', ''], /--arrival-seed needs a value/],
    [['--find-max', '--slo', 'p99<100ms', '--poisson-rate', '10'], /^--find-max chooses the rates itself; drop --poisson-rate$/],
  ])('user error %j: one line, exit 2, no database', async (extra, message) => {
    const db = path.join(tmp, 'never.sqlite');
    const r = await cli('load', args([...extra, '--db', db]));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim().replace(/^electrum-bench: /, '')).toMatch(message);
    expect(fs.existsSync(db)).toBe(false);
  });

  test('two shards send their shares of one schedule, and load merge makes them the whole test; a shard of another seed is refused', async () => {
    const m = model(100, 'shards');
    const startAt = String(Math.ceil(Date.now() / 1000) + 6);
    const shard = (db: string, which: string, seed = 'shards') => args(['--poisson-rate', '100', '--arrival-seed', seed, '--duration', '2s', '--shard', which, '--start-at', startAt, '--db', db]);
    const [a, b, other] = ['s1.sqlite', 's2.sqlite', 'other.sqlite'].map((f) => path.join(tmp, f));
    // Two shards as processes of their own, one in this process, all at --start-at.
    const own = [shard(a, '1/2'), shard(other, '2/2', 'another')].map((argv) => exitOf(spawnCommand('load', argv, { cwd: ROOT, stdio: 'ignore' })));
    const here = await cli('load', shard(b, '2/2'));
    expect([...(await Promise.all(own)), here.code]).toEqual([0, 0, 0]);
    const sent = (db: string) => query<{ sent: number }>(db, 'SELECT sum(sent) AS sent FROM load_intervals').sent;
    expect([sent(a), sent(b)]).toEqual([1, 2].map((index) => schedule(m, 2000, { index, count: 2 }).length));
    expect(JSON.parse(query<{ model_json: string }>(a, 'SELECT model_json FROM load_runs').model_json)).toEqual(m);

    const all = path.join(tmp, 'all.sqlite');
    const merged = await cli('load', ['merge', a, b, '--db', all]);
    expect({ code: merged.code, stderr: merged.stderr }).toEqual({ code: 0, stderr: '' });
    expect(sent(all)).toBe(schedule(m, 2000).length);
    expect(query<{ model_text: string }>(all, 'SELECT model_text FROM load_runs')).toEqual({ model_text: 'open, Poisson arrivals averaging 100/s (seed shards)' });

    const refused = await cli('load', ['merge', a, other, '--db', path.join(tmp, 'bad.sqlite')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/ran a different load model than .*: arrival seed another instead of shards/);
    expect(fs.existsSync(path.join(tmp, 'bad.sqlite'))).toBe(false);
  });
});
