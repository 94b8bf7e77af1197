/**
 * The load engine against the lab's real ElectrumX and electrs, through the CLI as a user runs it:
 * a constant rate on both (one after another), a ramp, virtual users, a short --find-max search,
 * and two shards at half the rate merged into one run compared with one run at the whole rate.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { describeBuilt, labEnv } from './lab/env';
import { labConfig, labPaths } from '../src/lab/config';
import { pidFile } from '../src/lab/processes';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'bin', 'electrum-bench.js');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-load-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function server(name: 'electrumx' | 'electrs'): string {
  const s = labEnv().electrum[name];
  return `${name}@${s.host}:${s.port}`;
}

function load(args: string[]) {
  return spawnSync(process.execPath, [LAUNCHER, 'load', '--dataset', labEnv().datasetPath, '--no-progress', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
}

function all<T>(db: string, sql: string): T[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all() as T[];
  } finally {
    d.close();
  }
}

test('a constant rate on both lab servers, one after another: every request answered, nothing dropped', () => {
  const db = path.join(tmp, 'rate.sqlite');
  const r = load(['--server', server('electrumx'), '--server', server('electrs'), '--rate', '20', '--duration', '3s', '--db', db, '--threshold', 'errors:rate<0.01', '--json']);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const out = JSON.parse(r.stdout);
  expect(out.servers.map((s: { server: string }) => s.server)).toEqual(['electrumx', 'electrs']);
  for (const s of out.servers) {
    expect(s.sent).toBe(60);
    expect(s.ok).toBe(60);
    expect(s.dropped).toBe(0);
    expect(s.latencyMs.p50).toBeGreaterThan(0);
    // Every scheduled request ends as exactly one outcome; a real server answers them all.
    expect(Object.values(s.outcomes as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(60);
    expect(s.answered).toBe(60);
    expect(s.stoppedAnswering).toBeNull();
  }
  const servers = all<{ name: string; software: string }>(db, 'SELECT name, software FROM run_servers ORDER BY id');
  expect(servers[0].software).toMatch(/ElectrumX/i);
  expect(servers[1].software).toMatch(/electrs/i);
});

describeBuilt('esplora', "Esplora's REST API under load", () => {
  test('a constant rate over keep-alive HTTP: every request answered, sizes checked, nothing dropped; the lab processes sampled', () => {
    const env = labEnv();
    const db = path.join(tmp, 'rest.sqlite');
    const r = load(['--server', `esplora-rest@${env.esploraRest}`, '--rate', '20', '--duration', '3s', '--connections', '2', '--pipeline', '8', '--db', db, '--json', '--server-pidfile', `esplora=${esploraPidFile()}`, '--sample-every', '0.5']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    const [s] = JSON.parse(r.stdout).servers;
    expect(s).toMatchObject({ server: 'esplora-rest', sent: 60, ok: 60, dropped: 0 });
    expect(all<{ software: string }>(db, 'SELECT software FROM run_servers')[0].software).toBe('Esplora REST API');
    expect(all<{ n: number }>(db, `SELECT count(*) AS n FROM resource_samples WHERE run_id IN (SELECT id FROM runs WHERE kind = 'load') AND target = 'esplora' AND cpu_user_s IS NOT NULL`)[0].n).toBeGreaterThanOrEqual(3);
  });
});

function esploraPidFile(): string {
  return pidFile(labPaths(labConfig()), 'esplora');
}

test('a ramp follows its stages; virtual users keep one request each in flight', () => {
  const db = path.join(tmp, 'ramp.sqlite');
  const r = load(['--server', server('electrumx'), '--stages', '2s:40,2s:40', '--db', db, '--json']);
  expect(r.status).toBe(0);
  const s = JSON.parse(r.stdout).servers[0];
  expect(s.sent).toBe(120); // 0→40/s over 2 s = 40, then 40/s for 2 s = 80
  expect(s.scheduled).toBe(120);
  const targets = all<{ idx: number; target_rate: number }>(db, 'SELECT idx, target_rate FROM load_intervals ORDER BY idx');
  expect(targets[0].target_rate).toBe(10); // the middle of the first second of a 0→40 ramp
  expect(targets[3].target_rate).toBe(40);

  const vdb = path.join(tmp, 'vus.sqlite');
  const v = load(['--server', server('electrs'), '--vus', '3', '--duration', '3s', '--db', vdb, '--json']);
  expect(v.status).toBe(0);
  const vs = JSON.parse(v.stdout).servers[0];
  expect(vs.ok).toBeGreaterThan(3);
  expect(Object.keys(vs.errors)).toEqual([]);
  const vus = all<{ vus: number }>(vdb, 'SELECT vus FROM load_intervals');
  expect(vus.every((x) => x.vus === 3)).toBe(true);
});

test('--find-max steps the rate up and reports a max sustainable rate (or says the generator was the limit)', () => {
  const db = path.join(tmp, 'max.sqlite');
  const r = load(['--server', server('electrumx'), '--find-max', '--slo', 'p99<200ms', '--dwell', '2s', '--warmup', '1s', '--start-rate', '20', '--step-factor', '2', '--max-rate', '80', '--bisect-steps', '1', '--db', db, '--json']);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const found = JSON.parse(r.stdout).findMax[0];
  expect(found.server).toBe('electrumx');
  expect(found.steps.length).toBeGreaterThanOrEqual(2);
  expect(found.steps[0].phase).toBe('warmup');
  expect(['server', 'generator', 'max-rate']).toContain(found.limitedBy);
  if (found.limitedBy !== 'generator') expect(found.maxSustainableRate).toBeGreaterThanOrEqual(20);
  const steps = all<{ step: number }>(db, 'SELECT DISTINCT step FROM load_intervals ORDER BY step');
  expect(steps.length).toBe(found.steps.length); // every step's intervals are stored, numbered on
});

test('two shards at half the rate, merged, match one run at the whole rate', async () => {
  const single = path.join(tmp, 'single.sqlite');
  expect(load(['--server', server('electrumx'), '--rate', '40', '--duration', '3s', '--db', single]).status).toBe(0);
  const { spawn } = await import('node:child_process');
  const startAt = String(Math.ceil(Date.now() / 1000) + 6); // the shards' rendezvous, with room for two processes to start
  const shard = (db: string, s: string) =>
    new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, [LAUNCHER, 'load', '--dataset', labEnv().datasetPath, '--no-progress', '--server', server('electrumx'), '--rate', '40', '--duration', '3s', '--shard', s, '--start-at', startAt, '--db', db], { cwd: ROOT, stdio: 'ignore' });
      c.on('exit', resolve);
    });
  const a = path.join(tmp, 's1.sqlite');
  const b = path.join(tmp, 's2.sqlite');
  expect(await Promise.all([shard(a, '1/2'), shard(b, '2/2')])).toEqual([0, 0]);
  const merged = path.join(tmp, 'merged.sqlite');
  const m = spawnSync(process.execPath, [LAUNCHER, 'load', 'merge', a, b, '--db', merged], { cwd: ROOT, encoding: 'utf8' });
  expect(m.status).toBe(0);
  const totals = (db: string) =>
    all<{ sent: number; ok: number; target: number }>(db, `SELECT sum(sent) AS sent, (SELECT sum(count) FROM load_cells WHERE outcome = 'ok') AS ok, max(target_rate) AS target FROM load_intervals`)[0];
  expect(totals(merged)).toEqual(totals(single));
  expect(totals(single)).toEqual({ sent: 120, ok: 120, target: 40 });
});
