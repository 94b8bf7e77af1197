/**
 * `bench --lab --cold` against the real lab, as root: the page cache dropped and every lab server
 * restarted on its own index before each cold pass, the counted passes alternating cold and warm;
 * the cold and warm medians per server and method stored, in the JSON and in the report alike, and
 * a verdict per server on its first touches after a restart against the same calls warm.
 *
 * What is asserted on, and why. Not a method's cold median against its warm median: a restart's
 * cost lands on the first read of each part of the index, and the rest of a cold pass runs at warm
 * speed, so a cold median sits on the warm one and the noise of a shared machine crosses it both
 * ways (ElectrumX's balance 1.04 ms cold against 1.31 ms warm, 2026-11-28). Each address's first
 * touch instead: per cold pass, the first call the server's process got for it after the restart,
 * beside the same call's mean over the warm passes, their totals judged by the tool's verdict (a
 * bootstrap over the cold passes, the warm passes and the touches). Not beside the warm medians, as
 * before 2026-11-29: the median of two warm passes is the faster of them, which made a server with
 * no cold cost look slower cold.
 *
 * Asserted: every server has a verdict, and ElectrumX's first touches, the one server whose
 * restart cost more than the machine's noise, above the same calls warm in total (1.42 to 1.54
 * times in eight runs on 2026-11-29 with the lab's tests alone on the machine; 1.10 in one beside
 * the whole unit tier, every verdict "~" then). Not its verdict: "slower" in 7 of the 8 (2 of 2
 * with --passes 9), "~" in one, whose interval's low end was −1 %; with two
 * warm passes the interval is rough. The others' verdicts are printed, not asserted: on this lab their
 * indexes are megabytes read back from a virtual disk the host caches, their first touches came to
 * 0.75 to 1.39 times the same calls warm, mostly "no change", and with two warm passes a slow
 * moment of the machine in one of them can still tip a verdict (docs/bench.md, "Cold runs", has the
 * figures and why for each, romanz's electrs and the REST APIs included).
 *
 * First touches are counted per process (Esplora's Electrum port and REST API are one process, one
 * index: an address is first touched by whichever asked first).
 * That the restarts happened is asserted on its own (each server's pid changed), so a verdict is
 * not a skewed distribution passing for a cold start that never happened.
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
import { coldTable, coldVerdictsTable } from '../src/report/tables';
import { verdictText, type Verdict } from '../src/verdicts/verdict';

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
  first_touches: number;
  first_touch_sum_ns: number;
  warm_median_sum_ns: number;
  warm_mean_sum_ns: number | null;
}

async function labPids(): Promise<Record<string, number | null>> {
  const status = await labStatus();
  return Object.fromEntries(status.components.map((c) => [c.name, c.pid]));
}

cold(`bench --lab --cold: cold and warm medians per server and method, stored, in the JSON and the report; a verdict per server on its first touches against the same calls warm; ElectrumX's first touches above the same calls warm${canDrop ? ` (skipped: ${canDrop})` : ''}`, async () => {
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
        `SELECT rs.name AS server, c.method, c.n, c.n_ok, c.p50_ns, s.p50_ns AS warm_p50_ns, c.first_touches, c.first_touch_sum_ns, c.warm_median_sum_ns, c.warm_mean_sum_ns
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
      expect(r.first_touches).toBeLessThanOrEqual(2 * lines);
    }
    // The stored sums are the samples' own: the first touches found again here, from the rows, each
    // beside the same call in every counted warm pass that answered it.
    const coldCalls = d
      .prepare(
        `SELECT rs.name AS server, s.method, s.pass, s.address_idx AS address, s.status, s.latency_ns AS latency, m.median_ns AS median
         FROM samples s JOIN run_servers rs ON rs.id = s.server_id
         LEFT JOIN medians m ON m.run_id = s.run_id AND m.server_id = s.server_id AND m.method = s.method AND m.address_idx = s.address_idx
         WHERE s.cold = 1 AND s.warmup = 0 ORDER BY s.at_ms, s.id`,
      )
      .all() as Array<{ server: string; method: string; pass: number; address: number; status: string; latency: number; median: number | null }>;
    const warmCalls = new Map<string, Array<{ pass: number; latency: number }>>();
    for (const w of d
      .prepare("SELECT rs.name AS server, s.method, s.pass, s.address_idx AS address, s.latency_ns AS latency FROM samples s JOIN run_servers rs ON rs.id = s.server_id WHERE s.cold = 0 AND s.warmup = 0 AND s.status = 'ok'")
      .all() as Array<{ server: string; method: string; pass: number; address: number; latency: number }>) {
      const k = `${w.server}/${w.method}/${w.address}`;
      warmCalls.set(k, [...(warmCalls.get(k) ?? []), w]);
    }
    const warmMean = (c: { server: string; method: string; address: number }) => {
      const warm = warmCalls.get(`${c.server}/${c.method}/${c.address}`) ?? [];
      return warm.length ? warm.reduce((n, w) => n + w.latency, 0) / warm.length : undefined;
    };
    // Touched per process: Esplora's Electrum port and REST API are one process, one index.
    const processOf = new Map((d.prepare("SELECT name, json_extract(setup_json, '$.process') AS process FROM run_servers").all() as Array<{ name: string; process: string | null }>).map((r) => [r.name, r.process]));
    for (const t of targets) expect(processOf.get(t)).toBe(t in env.electrum ? t : t.replace(/-rest$/, ''));
    const touched = new Set<string>();
    const sums = new Map<string, { touches: number; means: number; medians: number; n: number }>();
    for (const c of coldCalls) {
      const key = `${processOf.get(c.server)}/${c.pass}/${c.address}`;
      if (touched.has(key)) continue;
      touched.add(key);
      const mean = warmMean(c);
      if (c.status !== 'ok' || mean === undefined) continue;
      const sum = sums.get(c.server) ?? { touches: 0, means: 0, medians: 0, n: 0 };
      sums.set(c.server, { touches: sum.touches + c.latency, means: sum.means + mean, medians: sum.medians + c.median!, n: sum.n + 1 });
    }
    expect([...sums.keys()].sort()).toEqual([...targets].sort());
    for (const [server, sum] of sums) {
      const stored = rows.filter((x) => x.server === server);
      expect(stored.reduce((n, x) => n + x.first_touches, 0)).toBe(sum.n);
      expect(stored.reduce((n, x) => n + x.first_touch_sum_ns, 0)).toBe(sum.touches);
      // Stored rounded to the nanosecond, per method.
      expect(Math.abs(stored.reduce((n, x) => n + x.warm_mean_sum_ns!, 0) - sum.means)).toBeLessThanOrEqual(stored.length);
      expect(stored.reduce((n, x) => n + x.warm_median_sum_ns, 0)).toBe(sum.medians);
    }
    process.stdout.write(`cold first touches against the same calls warm: ${[...sums].map(([server, sum]) => `${server} ${(sum.touches / sum.means).toFixed(2)} (${sum.n})`).join(', ')}\n`);

    // The JSON says the same figures as the store, per server and method, and a verdict per server over the same pairs.
    const json = JSON.parse(run.stdout) as {
      cold: Array<{ server: string; method: string; latencyNs: { p50: number }; warmP50Ns: number; firstTouches: { sumNs: number; warmMeanSumNs: number; warmMedianSumNs: number } }>;
      coldVerdicts: Array<{ server: string; coldSumNs: number; warmSumNs: number; verdict: Verdict }>;
    };
    expect(json.cold.map((c) => [c.server, c.method, c.latencyNs.p50, c.warmP50Ns, c.firstTouches.sumNs, c.firstTouches.warmMeanSumNs, c.firstTouches.warmMedianSumNs]).sort()).toEqual(
      rows.map((r) => [r.server, r.method, r.p50_ns, r.warm_p50_ns, r.first_touch_sum_ns, r.warm_mean_sum_ns, r.warm_median_sum_ns]).sort(),
    );
    expect(json.coldVerdicts.map((v) => [v.server, v.coldSumNs, v.warmSumNs, v.verdict.n]).sort()).toEqual([...sums].map(([server, sum]) => [server, sum.touches, Math.round(sum.means), sum.n]).sort());
    process.stdout.write(`cold against warm, per server: ${json.coldVerdicts.map((v) => `${v.server} ${verdictText(v.verdict)}`).join('; ')}\n`);
    // What the issue asks, as far as this lab shows it (see the top of the file): every server has
    // a verdict, and ElectrumX's first touches, whose restart's cost is the one this lab shows above
    // its noise, cost more than the same calls warm (1.42 to 1.54 times in eight runs, 1.10 beside the unit tier).
    for (const v of json.coldVerdicts) expect({ server: v.server, verdict: v.verdict.verdict }).not.toEqual({ server: v.server, verdict: null });
    const electrumx = sums.get('electrumx')!;
    expect(electrumx.touches).toBeGreaterThan(electrumx.means);
    // The report says the verdicts too, in the same words.
    const model = readModels(reportOptions({ db, out: path.join(tmp, 'report') })).bench!;
    const judged = coldVerdictsTable(model)!;
    expect(judged.rows.map((r) => [r[0], r[judged.head.indexOf('cold vs warm')]]).sort()).toEqual(json.coldVerdicts.map((v) => [v.server, verdictText(v.verdict)]).sort());

    // The report's table says them too, beside each other, per server and method.
    const table = coldTable(model)!;
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
