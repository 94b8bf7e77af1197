/**
 * Interleaved A/B load runs (`load --interleave --baseline`) on the lab's real servers, through the
 * CLI as a user runs it: ElectrumX under two names (A/A) claims no regression beyond
 * --fail-on-regression's 10 % and exits 0; ElectrumX against electrs, the slower one as B, is `slower` with an interval
 * above zero and exits 99, and the same run compared the other way round is `faster`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'bin', 'electrum-bench.js');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-load-ab-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function server(name: 'electrumx' | 'electrs', label: string = name): string {
  const s = labEnv().electrum[name];
  return `${label}=${name}@${s.host}:${s.port}`;
}

const cli = (command: string, args: string[]) => spawnSync(process.execPath, [LAUNCHER, command, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });

/** The verdict rows a load run or `report compare` printed for `server`, by percentile. */
function verdicts(text: string, server: string): Record<string, string> {
  const rows = text.split('\n').filter((l) => new RegExp(`^\\|? *${server} +\\|? *p(50|99) `).test(l));
  return Object.fromEntries(rows.map((l) => [/ (p50|p99) /.exec(l)![1], /((?:~|slower|faster) [+−]\S+ % \[[^\]]+\], sign test n=\d+ p=\d\.\d{3})/.exec(l)?.[1] ?? l]));
}

test('ElectrumX under two names, in turns (A/A): a verdict for p50 and p99 over 10 rounds, no regression claimed, exit 0 with --fail-on-regression 10', () => {
  const db = path.join(tmp, 'aa.sqlite');
  const r = cli('load', [
    '--server', server('electrumx', 'a'), '--server', server('electrumx', 'b'), '--dataset', labEnv().datasetPath,
    '--rate', '50', '--duration', '20s', '--interleave', '2s', '--baseline', 'a', '--fail-on-regression', '10', '--db', db, '--no-progress',
  ]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(r.stdout).toMatch(/outcomes \(a\): ok 1000 = 1000 scheduled/);
  expect(r.stdout).toMatch(/outcomes \(b\): ok 1000 = 1000 scheduled/);
  const v = verdicts(r.stdout, 'b vs a');
  expect(Object.keys(v).sort()).toEqual(['p50', 'p99']);
  // What the tool promises of an A/A run is its gate: no regression claimed, exit 0 (above). Each
  // verdict is a test at 95 %, so an A/A run is called a change about once in 40 (calibrated in
  // bench/load-verdict-calibration.ts), and its point estimate is noise that a busy machine
  // carries past any bound (14.4 % seen on CI): neither is held here, only that each verdict was
  // made, of all 10 rounds.
  for (const cell of Object.values(v)) {
    const m = /^(~|slower|faster) ([+−])(\d+\.\d) % \[[+−][\d.]+, [+−][\d.]+\], sign test n=10 p=\d\.\d{3}$/.exec(cell);
    expect({ cell, parsed: m !== null }).toEqual({ cell, parsed: true });
  }
}, 240_000);

test('ElectrumX against electrs under one --baseline: electrs, as B, slower turn by turn and exit 99; compared the other way round, faster', () => {
  const db = path.join(tmp, 'xe.sqlite');
  const r = cli('load', [
    '--server', server('electrumx'), '--server', server('electrs'), '--dataset', labEnv().datasetPath,
    '--rate', '20', '--duration', '10s', '--interleave', '1s', '--baseline', 'electrumx', '--fail-on-regression', '10', '--db', db, '--no-progress',
  ]);
  expect(r.status).toBe(99);
  expect(r.stderr.trim()).toMatch(/^regression beyond 10 %: electrs vs electrumx load p50 slower \+/);
  const slower = verdicts(r.stdout, 'electrs vs electrumx');
  expect(slower.p50).toMatch(/^slower \+[\d.]+ % \[\+[\d.]+, \+[\d.]+\], sign test n=10 p=0\.\d{3}$/);
  // Every answer of both counted: the verdict is of real answers, not of failures.
  const sql = new Database(db, { readonly: true });
  try {
    const outcomes = sql.prepare('SELECT name, outcome_json FROM run_servers ORDER BY id').all() as Array<{ name: string; outcome_json: string }>;
    for (const o of outcomes) expect(JSON.parse(o.outcome_json).outcomes).toEqual({ ok: 200 });
  } finally {
    sql.close();
  }
  const other = cli('report', ['compare', '--db', db, '--a', 'electrs', '--b', 'electrumx', '--fail-on-regression', '10']);
  expect(other.status).toBe(0);
  expect(verdicts(other.stdout, 'electrumx vs electrs').p50).toMatch(/^faster −[\d.]+ % \[−[\d.]+, −[\d.]+\], sign test n=10/);
}, 240_000);
