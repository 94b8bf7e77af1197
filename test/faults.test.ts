/**
 * The fault corpus against the lab's real servers: a bench SIGKILLed at 20 seeded random moments
 * (while starting, creating its run, measuring, finishing) leaves a database that passes SQLite's
 * integrity check and a run that `--resume` completes, every time; and a server killed and
 * restarted mid-run: the run reconnects, the outage is recorded as errors, nothing is lost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';
import { seededRandom } from '../src/core/random';
import { labRestartServer } from '../src/lab/lab';

const ROOT = path.resolve(__dirname, '..');
const BENCH = path.join(ROOT, 'src', 'cli', 'bench.ts');
// One process per command (tsx as a loader), so SIGKILL hits the bench itself.
const NODE_ARGS = ['--import', 'tsx', BENCH, '--no-progress'];
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-faults-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function electrumx(): string {
  const s = labEnv().electrum.electrumx;
  return `electrumx@${s.host}:${s.port}`;
}

/** Resolves once the run is in the database, measuring (or the process ended first). */
async function runCreated(db: string, exited: Promise<unknown>): Promise<void> {
  let over = false;
  void exited.then(() => (over = true));
  while (!over) {
    try {
      if (fs.existsSync(db) && query<{ n: number }>(db, 'SELECT count(*) AS n FROM runs').n >= 1) return;
    } catch {
      /* schema not there yet */
    }
    await new Promise((r) => setTimeout(r, 15));
  }
}

function query<T>(db: string, sql: string): T {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).get() as T;
  } finally {
    d.close();
  }
}

test('SIGKILL at 20 random moments: integrity_check ok, and --resume completes the run each time', async () => {
  const env = labEnv();
  const rand = seededRandom('sigkill-moments');
  const passes = 3;
  const lines = fs.readFileSync(env.datasetPath, 'utf8').trim().split('\n').length;
  const total = passes * lines * 3;
  const outcomes = { beforeRun: 0, resumed: 0, alreadyComplete: 0 };
  const start = (db: string) => {
    const child = spawn(process.execPath, [...NODE_ARGS, '--server', electrumx(), '--dataset', env.datasetPath, '--passes', String(passes), '--db', db], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    return { child, exited: new Promise((r) => child.on('exit', r)) };
  };
  // One whole run first, to learn when this machine's runs start measuring and how long they
  // measure: the moments are drawn inside that span, so a fast machine (a run measures in about a
  // second, and samples reach the file once a second) cannot push them all past the end.
  const calibration = start(path.join(tmp, 'calibration.sqlite'));
  const t0 = Date.now();
  await runCreated(path.join(tmp, 'calibration.sqlite'), calibration.exited);
  const runAt = Date.now() - t0;
  await calibration.exited;
  const measuring = Math.max(200, Date.now() - t0 - runAt);
  for (let i = 0; i < 20; i++) {
    const db = path.join(tmp, `kill-${i}.sqlite`);
    const { child, exited } = start(db);
    // A few during start-up, the rest at a random point of the measuring span.
    if (i < 4) await new Promise((r) => setTimeout(r, rand() * runAt));
    else {
      await runCreated(db, exited);
      await new Promise((r) => setTimeout(r, rand() * measuring * 0.8));
    }
    child.kill('SIGKILL');
    await exited;
    if (!fs.existsSync(db)) {
      outcomes.beforeRun++;
      continue;
    }
    const d = new Database(db);
    expect(d.pragma('integrity_check', { simple: true })).toBe('ok');
    // Killed after the file appeared but before its schema's first migration committed: no run yet.
    const hasRuns = d.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get() !== undefined;
    const run = hasRuns ? (d.prepare('SELECT id, status FROM runs').get() as { id: number; status: string } | undefined) : undefined;
    d.close();
    if (!run) {
      outcomes.beforeRun++;
      continue;
    }
    if (run.status === 'completed') {
      outcomes.alreadyComplete++;
      continue;
    }
    const r = spawnSync(process.execPath, [...NODE_ARGS, '--resume', String(run.id), '--db', db], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect({ i, status: r.status, stderr: r.stderr }).toEqual({ i, status: 0, stderr: expect.any(String) });
    const after = query<{ status: string; n: number; sessions: number }>(
      db,
      `SELECT (SELECT status FROM runs) AS status, (SELECT count(*) FROM samples) AS n, (SELECT count(*) FROM run_sessions) AS sessions`,
    );
    expect(after).toEqual({ status: 'completed', n: total, sessions: 2 });
    outcomes.resumed++;
  }
  // The moments must really have fallen mid-run for most of the 20.
  expect(outcomes.resumed).toBeGreaterThanOrEqual(12);
}, 600_000);

test('the server killed and restarted mid-run: the run reconnects, records the outage as errors, and loses nothing', async () => {
  const env = labEnv();
  const db = path.join(tmp, 'restart.sqlite');
  const passes = 40;
  const child = spawn(process.execPath, [...NODE_ARGS, '--server', electrumx(), '--dataset', env.datasetPath, '--passes', String(passes), '--methods', 'balance', '--db', db], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.on('data', (c) => (stdout += c));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    try {
      if (query<{ n: number }>(db, 'SELECT count(*) AS n FROM samples').n > 200) break;
    } catch {
      /* not created yet */
    }
  }
  const outage = await labRestartServer('electrumx', { killSignal: 'SIGKILL' });
  expect(await exited).toBe(0);
  const lines = fs.readFileSync(env.datasetPath, 'utf8').trim().split('\n').length;
  const r = query<{ n: number; errors: number; ok: number }>(
    db,
    `SELECT count(*) AS n, sum(status IN ('disconnect', 'timeout')) AS errors, sum(status = 'ok') AS ok FROM samples`,
  );
  expect(r.n).toBe(passes * lines); // nothing lost: every planned call is a sample
  expect(r.errors).toBeGreaterThanOrEqual(1); // the outage is on record
  // ...at the reconnect loop's pace (100 ms doubling to 1 s), not one per call in a burst.
  expect(r.errors).toBeLessThanOrEqual(Math.ceil(outage.downMs / 100) + 5);
  const pool = JSON.parse(query<{ pool_json: string }>(db, 'SELECT pool_json FROM bench_runs').pool_json).electrumx;
  expect(pool.outages.length).toBeGreaterThanOrEqual(1);
  expect(stdout).toMatch(/disconnect/);
}, 180_000);
