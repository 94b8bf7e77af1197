/**
 * Capacity counted in wallets on the lab's real servers: `load --workload --find-max` searches the
 * highest arrival rate of wallet syncs within an SLO on time to synced, and `--slo-notify` the most
 * held wallets told of a mined block within an SLO, each step judged, stored and reported. It mines,
 * so test/lab/sequencer.js runs it after the lab tests that rely on the chain as generated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-capacity-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function load(args: string[]) {
  return spawnSync('bash', [path.join(ROOT, 'scripts', 'raise-fd-limit.sh'), TSX, path.join(ROOT, 'src', 'cli', 'load.ts'), '--workload', 'electrum', '--json', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
}

interface Step {
  step: number;
  targetRate: number;
  achievedRate: number;
  sloValueMs: number | null;
  passed: boolean;
}

test('the highest arrival rate of wallet syncs within "sync p99<2s", step by step, with its seconds and rows stored and the report\'s table', () => {
  const db = path.join(tmp, 'rate.sqlite');
  const r = load(['--server', 'electrumx', '--wallet-max-txs', '10', '--find-max', '--slo', 'sync p99<2s', '--start-rate', '2', '--step-factor', '2', '--max-rate', '8', '--dwell', '2s', '--warmup', '0s', '--bisect-steps', '0', '--db', db]);
  expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: r.stderr });
  const out = JSON.parse(r.stdout) as { runId: number; findMax: Array<{ server: string; steps: Step[]; maxSustainableRate: number | null; limitedBy: string; statement: string }> };
  const [found] = out.findMax;
  expect(found.server).toBe('electrumx');
  expect(found.steps.length).toBeGreaterThanOrEqual(1);
  expect(found.steps.map((s) => s.targetRate)).toEqual([2, 4, 8].slice(0, found.steps.length));
  // Every step that passed met the SLO and answered at least 95 % of its rate; the figure is the last of them.
  for (const s of found.steps.filter((x) => x.passed)) {
    expect(s.sloValueMs).toBeLessThanOrEqual(2000);
    expect(s.achievedRate).toBeGreaterThanOrEqual(0.95 * s.targetRate);
  }
  const passed = found.steps.filter((s) => s.passed);
  expect(found.maxSustainableRate).toBe(passed.length ? passed[passed.length - 1].targetRate : null);
  expect(found.statement).toMatch(/^electrumx: /);
  // Each step's arrivals are rows, and the seconds hold each of them once, under its step.
  const d = new Database(db, { readonly: true });
  try {
    const rows = (d.prepare('SELECT count(*) AS n FROM wallet_syncs WHERE intended_ms IS NOT NULL').get() as { n: number }).n;
    const cells = d.prepare("SELECT i.step AS step, sum(c.count) AS n FROM load_cells c JOIN load_intervals i USING (run_id, server_id, idx) WHERE c.method = 'sync' GROUP BY i.step ORDER BY i.step").all() as Array<{ step: number; n: number }>;
    expect(cells.map((c) => c.step)).toEqual(found.steps.map((s) => s.step));
    expect(cells.reduce((n, c) => n + c.n, 0)).toBe(rows);
    // Each step of 2 s holds its rate's worth of arrivals.
    for (const c of cells) expect(c.n).toBe(2 * found.steps[c.step].targetRate);
  } finally {
    d.close();
  }
  const report = spawnSync(TSX, [path.join(ROOT, 'src', 'cli', 'report.ts'), '--db', db, '--out', path.join(tmp, 'rate-report')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect({ code: report.status, stderr: report.stderr }).toEqual({ code: 0, stderr: report.stderr });
  const md = fs.readFileSync(path.join(tmp, 'rate-report', 'summary.md'), 'utf8');
  expect(md).toContain('Find-max: wallets arriving, time to synced within the SLO');
  expect(md).toContain(found.statement);
}, 300_000);

test('the most held wallets told of a block within "p99<10s": each step holds more, mines one block, and every held connection is judged', () => {
  const db = path.join(tmp, 'held.sqlite');
  const r = load(['--server', 'fulcrum', '--wallet-max-txs', '10', '--hold', '10', '--find-max', '--slo-notify', 'p99<10s', '--max-hold', '20', '--step-factor', '2', '--blocks', '1', '--pay-wallets', '2', '--db', db]);
  expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: r.stderr });
  const out = JSON.parse(r.stdout) as { findMaxHeld: Array<{ server: string; steps: Array<{ held: number; wanted: number; blocks: number; missing: number; passed: boolean }>; maxHeld: number | null; limitedBy: string }> };
  const [found] = out.findMaxHeld;
  expect(found.steps.map((s) => ({ held: s.held, wanted: s.wanted, blocks: s.blocks, missing: s.missing, passed: s.passed }))).toEqual([
    { held: 10, wanted: 10, blocks: 1, missing: 0, passed: true },
    { held: 20, wanted: 20, blocks: 1, missing: 0, passed: true },
  ]);
  expect(found).toMatchObject({ server: 'fulcrum', maxHeld: 20, limitedBy: 'max-hold' });
  // One headers notification per held connection per step's block.
  const d = new Database(db, { readonly: true });
  try {
    const rows = d.prepare("SELECT block_height AS height, count(*) AS n FROM wallet_notifications WHERE kind = 'headers' AND status = 'ok' GROUP BY block_height ORDER BY block_height").all() as Array<{ n: number }>;
    expect(rows.map((x) => x.n)).toEqual([10, 20]);
  } finally {
    d.close();
  }
}, 300_000);

test('an SLO no server meets: the first held step fails, and no figure is claimed', () => {
  const r = load(['--server', 'electrumx', '--wallet-max-txs', '10', '--hold', '5', '--find-max', '--slo-notify', 'p99<0.001ms', '--max-hold', '10', '--blocks', '1', '--db', path.join(tmp, 'impossible.sqlite')]);
  expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: r.stderr });
  const out = JSON.parse(r.stdout) as { findMaxHeld: Array<{ steps: Array<{ passed: boolean; why: string }>; maxHeld: number | null; statement: string }> };
  const [found] = out.findMaxHeld;
  expect(found.steps).toHaveLength(1);
  expect(found.steps[0]).toMatchObject({ passed: false, why: expect.stringMatching(/^p99 \d+ ms > 0.001 ms$/) });
  expect(found.maxHeld).toBeNull();
  expect(found.statement).toMatch(/^electrumx: not even 5 held wallets were told of a block within p99<0.001ms/);
}, 300_000);
