/**
 * `bench --lab --cold` against the real lab, as root: the page cache dropped and every lab server
 * restarted on its own index before each cold pass, the counted passes alternating cold and warm;
 * the cold and warm medians per server and method stored, printed and in the JSON alike, and each
 * server's cold passes slower than its warm ones.
 *
 * What "slower" is asserted on, and why. Not each method's cold median against its warm median: a
 * restart's first-touch cost lands on the first calls of a cold pass (the first read of each index
 * block, a fresh connection's first call), and once those are paid the rest of the pass runs at
 * warm speed, so a cold median sits on the warm one and the noise of a shared machine crosses it
 * both ways (measured on this lab: ElectrumX's balance 1.04 ms cold against 1.31 ms warm). What the
 * restart adds cannot be cancelled by noise in the other direction when every cold call is summed:
 * per server, the answered cold calls' latencies summed over every address and method against the
 * warm medians of the same address and method summed. A call can come in under its warm median by
 * at most that median less the fastest call (a few tenths of a ms here, summed over a pass a few
 * tens of ms), while the first touches add hundreds of ms to seconds per cold pass; a slow moment of
 * the machine only adds to the cold side or to a warm sample, never below a median. That the
 * restarts happened is asserted on its own (each server's pid changed), so the inequality is not a
 * skewed distribution's mean above its median passing for a cold start that never happened.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';
import { labStatus } from '../src/lab/lab';
import { pageCacheDropProblem } from '../src/resources/page-cache';
import { reportOptions } from '../src/report/options';
import { readModels } from '../src/report/report';
import { coldTable } from '../src/report/tables';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const BENCH = path.join(ROOT, 'src', 'cli', 'bench.ts');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cold-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const canDrop = pageCacheDropProblem();
const cold = canDrop === null ? test : test.skip;

interface ColdRow {
  server: string;
  method: string;
  n: number;
  n_ok: number;
  p50_ns: number | null;
  warm_p50_ns: number | null;
  paired_calls: number;
  cold_sum_ns: number;
  warm_sum_ns: number;
}

async function labPids(): Promise<Record<string, number | null>> {
  const status = await labStatus();
  return Object.fromEntries(status.components.map((c) => [c.name, c.pid]));
}

cold(`bench --lab --cold: cold and warm medians per server and method, stored, in the JSON and the report, every server's cold passes above its warm medians${canDrop ? ` (skipped: ${canDrop})` : ''}`, async () => {
  const env = labEnv();
  const servers = Object.keys(env.electrum);
  const before = await labPids();
  const db = path.join(tmp, 'cold.sqlite');
  const passes = 5; // a warm-up, then cold, warm, cold, warm
  const run = spawnSync(TSX, [BENCH, '--no-progress', '--lab', '--cold', '--passes', String(passes), '--warmup', '1', '--db', db, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 600_000,
  });
  expect(run.stderr).not.toMatch(/Error|at .*\.ts:\d+/);
  expect(run.status).toBe(0);
  const after = await labPids();
  // Every server restarted (twice: a new pid each time; the lab's pid file names the last).
  for (const name of servers) {
    expect(after[name]).not.toBeNull();
    expect(after[name]).not.toBe(before[name]);
  }

  const d = new Database(db, { readonly: true });
  try {
    // Each pass marked: the warm-up warm, then the counted passes alternating, cold first.
    const marks = d.prepare('SELECT pass, max(warmup) AS warmup, min(cold) AS lo, max(cold) AS hi FROM samples GROUP BY pass ORDER BY pass').all() as Array<{ pass: number; warmup: number; lo: number; hi: number }>;
    expect(marks).toEqual([
      { pass: 0, warmup: 1, lo: 0, hi: 0 },
      { pass: 1, warmup: 0, lo: 1, hi: 1 },
      { pass: 2, warmup: 0, lo: 0, hi: 0 },
      { pass: 3, warmup: 0, lo: 1, hi: 1 },
      { pass: 4, warmup: 0, lo: 0, hi: 0 },
    ]);
    const rows = d
      .prepare(
        `SELECT rs.name AS server, c.method, c.n, c.n_ok, c.p50_ns, s.p50_ns AS warm_p50_ns, c.paired_calls, c.cold_sum_ns, c.warm_sum_ns
         FROM cold_summaries c JOIN run_servers rs ON rs.id = c.server_id JOIN summaries s ON s.run_id = c.run_id AND s.server_id = c.server_id AND s.method = c.method
         ORDER BY rs.name, c.method`,
      )
      .all() as ColdRow[];
    const lines = (d.prepare('SELECT count(*) AS n FROM addresses').get() as { n: number }).n;
    const targets = (d.prepare('SELECT name FROM run_servers').all() as Array<{ name: string }>).map((r) => r.name);
    expect(targets.length).toBeGreaterThanOrEqual(servers.length);
    // Every server and method has both medians, over two cold and two warm passes of every address.
    expect(rows.map((r) => `${r.server}/${r.method}`)).toEqual(targets.sort().flatMap((t) => ['balance', 'history', 'utxos'].map((m) => `${t}/${m}`)));
    for (const r of rows) {
      expect(r.n).toBe(2 * lines);
      expect(r.n_ok).toBe(2 * lines);
      expect(r.p50_ns).toBeGreaterThan(0);
      expect(r.warm_p50_ns).toBeGreaterThan(0);
      expect(r.paired_calls).toBe(2 * lines);
    }
    // The stored sums are the samples' own: recomputed here from the rows, not trusted.
    const recomputed = d
      .prepare(
        `SELECT rs.name AS server, sum(s.latency_ns) AS cold_sum, sum(m.median_ns) AS warm_sum
         FROM samples s JOIN medians m ON m.run_id = s.run_id AND m.server_id = s.server_id AND m.method = s.method AND m.address_idx = s.address_idx
         JOIN run_servers rs ON rs.id = s.server_id
         WHERE s.cold = 1 AND s.warmup = 0 AND s.status = 'ok' GROUP BY rs.name ORDER BY rs.name`,
      )
      .all() as Array<{ server: string; cold_sum: number; warm_sum: number }>;
    for (const r of recomputed) {
      const stored = rows.filter((x) => x.server === r.server);
      expect(stored.reduce((n, x) => n + x.cold_sum_ns, 0)).toBe(r.cold_sum);
      expect(stored.reduce((n, x) => n + x.warm_sum_ns, 0)).toBe(r.warm_sum);
      // The assertion the issue asks for, on the figure noise cannot cross (see the top of the file).
      expect({ server: r.server, coldAboveWarm: r.cold_sum >= r.warm_sum }).toEqual({ server: r.server, coldAboveWarm: true });
    }
    expect(recomputed.map((r) => r.server)).toEqual([...targets].sort());

    // The JSON says the same figures as the store, per server and method.
    const json = JSON.parse(run.stdout) as { cold: Array<{ server: string; method: string; latencyNs: { p50: number }; warmP50Ns: number; paired: { coldSumNs: number; warmMedianSumNs: number } }> };
    expect(json.cold.map((c) => [c.server, c.method, c.latencyNs.p50, c.warmP50Ns, c.paired.coldSumNs, c.paired.warmMedianSumNs]).sort()).toEqual(
      rows.map((r) => [r.server, r.method, r.p50_ns, r.warm_p50_ns, r.cold_sum_ns, r.warm_sum_ns]).sort(),
    );
    // The report's table says them too, beside each other, per server and method.
    const table = coldTable(readModels(reportOptions({ db, out: path.join(tmp, 'report') })).bench!)!;
    const cell = (row: string[], name: string) => row[table.head.indexOf(name)];
    const ms = (ns: number | null) => (ns === null ? '–' : (ns / 1e6).toFixed(3));
    expect(table.rows.map((r) => [cell(r, 'server'), cell(r, 'method'), cell(r, 'warm p50 ms'), cell(r, 'cold p50 ms')]).sort()).toEqual(rows.map((r) => [r.server, r.method, ms(r.warm_p50_ns), ms(r.p50_ns)]).sort());
  } finally {
    d.close();
  }

  // Every server answers at the tip again after the run: the last cold restart left them serving.
  const status = await labStatus();
  for (const name of servers) expect(status.electrum[name as keyof typeof status.electrum]?.running).toBe(true);
}, 900_000);
