/**
 * A lab server SIGKILLed and restarted (labRestartServer) in the middle of a `load` run: the run
 * goes on, the outage is recorded once, from the first request the dead server failed to the first
 * answer after its return, and its length agrees with the restart's own measure of the down time;
 * every scheduled request still ends as exactly one outcome, and the summary and the report say it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';
import { labRestartServer } from '../src/lab/lab';
import { reportOptions } from '../src/report/options';
import { readModels } from '../src/report/report';
import { loadRunTable } from '../src/report/load-tables';

const ROOT = path.resolve(__dirname, '..');
const LOAD = path.join(ROOT, 'src', 'cli', 'load.ts');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-restart-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rows<T>(db: string, sql: string): T[] {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare(sql).all() as T[];
  } finally {
    d.close();
  }
}

function count(db: string, sql: string): number {
  try {
    return rows<{ n: number }>(db, sql)[0].n;
  } catch {
    return 0; // not created yet
  }
}

function electrumx(): string {
  const s = labEnv().electrum.electrumx;
  return `electrumx@${s.host}:${s.port}`;
}

function start(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', LOAD, '--no-progress', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  return { child, out, exited };
}

test('load --rate across a SIGKILL and restart of electrumx: one outage, as long as the restart measured, every request one outcome', async () => {
  const db = path.join(tmp, 'load.sqlite');
  const run = start(['--server', electrumx(), '--rate', '50', '--duration', '60s', '--connections', '4', '--timeout', '5', '--db', db]);
  const until = Date.now() + 60_000;
  while (count(db, 'SELECT count(*) AS n FROM load_intervals') < 4 && Date.now() < until) await wait(100);
  const killAt = Date.now();
  const restart = await labRestartServer('electrumx', { killSignal: 'SIGKILL' });
  const backAt = Date.now();
  const code = await run.exited;
  expect({ code, stderr: run.out.stderr }).toEqual({ code: 0, stderr: expect.any(String) });

  // Up before, down, up again after: the restart fell inside the run.
  const seconds = rows<{ startMs: number; ok: number; gone: number }>(
    db,
    `SELECT i.start_ms AS startMs, coalesce(sum(CASE WHEN k.outcome = 'ok' THEN k.count END), 0) AS ok, coalesce(sum(CASE WHEN k.outcome = 'disconnect' THEN k.count END), 0) AS gone
     FROM load_intervals i LEFT JOIN load_cells k ON k.run_id = i.run_id AND k.server_id = i.server_id AND k.idx = i.idx GROUP BY i.idx ORDER BY i.idx`,
  );
  expect(seconds.filter((s) => s.startMs + 1000 <= killAt).every((s) => s.ok > 0)).toBe(true);
  expect(seconds.filter((s) => s.startMs >= backAt + 2000 && s.ok > 0).length).toBeGreaterThanOrEqual(3);

  const stored = JSON.parse(rows<{ outcome_json: string }>(db, 'SELECT outcome_json FROM run_servers')[0].outcome_json);
  expect(Object.values(stored.outcomes as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(stored.scheduled);
  expect(stored.scheduled).toBe(50 * 60);
  expect(stored.outages).toHaveLength(1);
  const [o] = stored.outages;
  const lengthMs = o.endMs - o.startMs;
  // It begins at the kill, and ends with the first answer: the server opens its port once caught
  // up, a little before the restart's readiness probe (every 250 ms) sees it, and is found by the
  // next shared reconnect attempt (at most 1 s apart). Both margins get slack for two busy cores.
  expect(o.startMs).toBeGreaterThanOrEqual(killAt);
  expect(o.startMs).toBeLessThan(killAt + 1000);
  expect(o.endMs).toBeGreaterThan(o.startMs);
  // Nothing answers before the new process was spawned (indexMs is the restart's time from then).
  expect(o.endMs).toBeGreaterThanOrEqual(killAt + restart.downMs - restart.indexMs);
  expect(o.endMs).toBeLessThan(backAt + 2000);
  expect(lengthMs).toBeGreaterThan(restart.downMs - 1000);
  expect(lengthMs).toBeLessThan(restart.downMs + 2500);
  process.stdout.write(`electrumx restart: downMs ${restart.downMs}, outage recorded ${lengthMs} ms (${o.startS} s → ${o.endS} s)\n`);

  const text = `outage ${o.startS.toFixed(1)} s → ${o.endS.toFixed(1)} s (${(o.endS - o.startS).toFixed(1)} s)`;
  expect(run.out.stdout).toContain(`electrumx: ${text}`);
  const [report] = readModels(reportOptions({ db, out: path.join(tmp, 'report') })).load;
  const table = loadRunTable(report);
  expect(table.rows[0][table.head.indexOf('outages')]).toBe(text);
}, 300_000);
