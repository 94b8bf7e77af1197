/**
 * `bench --lab --cold` against the real lab, as root: the page cache dropped and every lab server
 * restarted on its own index before each cold pass, the counted passes alternating cold and warm;
 * the cold and warm medians per server and method stored, in the JSON and in the report alike, and
 * the servers that answer from their own index slower cold than warm.
 *
 * What "slower" is asserted on, and why. Not a method's cold median against its warm median: a
 * restart's cost lands on the first read of each part of the index, and the rest of a cold pass
 * runs at warm speed, so a cold median sits on the warm one and the noise of a shared machine
 * crosses it both ways (measured on this lab, 2026-11-28: ElectrumX's balance 1.04 ms cold against
 * 1.31 ms warm). Nor the first call after a restart alone: the lab's readiness probe has asked the
 * server its tip and some histories by then, and on this lab that call came in under its warm
 * median (ElectrumX 0.99 ms against 1.05 ms). What is asserted is each address's first touch: per
 * cold pass, the first call the server got for the address after the restart, summed over every
 * address, against the warm medians of the same calls summed. A call can come in under its warm
 * median by at most that median less the fastest call, while a first touch reads the address's
 * index from disk; a slow moment of the machine adds to a first touch or to one of the warm passes,
 * and a median of two warm passes is the faster of them. Measured on this lab, that sum was 1.4 to
 * 2.9 times the warm one for ElectrumX, Esplora and Fulcrum (1.21 to 1.80 in two runs later on
 * 2026-11-28, Fulcrum's the lowest; 1.33 to 2.05 in three runs on 2026-11-29). mempool's electrs,
 * an index of its own like Esplora's, is held to it too since its first touches are counted per
 * process (below): 1.26, 1.20 and 1.62 in those three runs (1.17 and 1.62 per target before).
 *
 * First touches are counted per process (Esplora's Electrum port and REST API are one process, one
 * index: an address is first touched by whichever asked first). Per target, as before 2026-11-29,
 * a REST call after the Electrum port's read of the same address counted as a first touch.
 *
 * Not asserted, and why: romanz's electrs asks the node (our adapter, which is not restarted) for
 * every lookup, and its own index here is under 1 MiB, so its restart costs milliseconds against
 * 43 ms of its own work per call (its first touches summed came to 0.88 to 1.27 times its warm
 * medians in four runs on 2026-11-28, 1.05 on 2026-11-29; with the adapter's blocks kept in a file,
 * as Core's, and dropped with the page cache, 1.02 and 1.05: the lab chain's blocks are 1.7 MB in
 * all, little to read back against electrs' 4.4 s of first touches a run; not kept). Nor the REST
 * APIs: the address bench's server rotation puts a REST target before its own process's Electrum
 * port at one address in seven, so each has 14 first touches in a run, and their histories'
 * latency is mostly the pages' round trips (Esplora's 1.05, 1.26, 1.11, mempool's 1.18, 1.11, 1.62
 * on 2026-11-29). Their figures are checked to be stored and reported like the others'.
 * That the restarts happened is asserted on its own (each server's pid changed), so the inequality
 * is not a skewed distribution passing for a cold start that never happened.
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
  first_touches: number;
  first_touch_sum_ns: number;
  warm_median_sum_ns: number;
}

async function labPids(): Promise<Record<string, number | null>> {
  const status = await labStatus();
  return Object.fromEntries(status.components.map((c) => [c.name, c.pid]));
}

cold(`bench --lab --cold: cold and warm medians per server and method, stored, in the JSON and the report; first touches above the warm medians where the servers answer from their own index${canDrop ? ` (skipped: ${canDrop})` : ''}`, async () => {
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
        `SELECT rs.name AS server, c.method, c.n, c.n_ok, c.p50_ns, s.p50_ns AS warm_p50_ns, c.first_touches, c.first_touch_sum_ns, c.warm_median_sum_ns
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
    // The stored sums are the samples' own: the first touches found again here, from the rows.
    const coldCalls = d
      .prepare(
        `SELECT rs.name AS server, s.pass, s.address_idx AS address, s.status, s.latency_ns AS latency, m.median_ns AS warm
         FROM samples s JOIN run_servers rs ON rs.id = s.server_id
         LEFT JOIN medians m ON m.run_id = s.run_id AND m.server_id = s.server_id AND m.method = s.method AND m.address_idx = s.address_idx
         WHERE s.cold = 1 AND s.warmup = 0 ORDER BY s.at_ms, s.id`,
      )
      .all() as Array<{ server: string; pass: number; address: number; status: string; latency: number; warm: number | null }>;
    // Touched per process: Esplora's Electrum port and REST API are one process, one index.
    const processOf = new Map((d.prepare("SELECT name, json_extract(setup_json, '$.process') AS process FROM run_servers").all() as Array<{ name: string; process: string | null }>).map((r) => [r.name, r.process]));
    for (const t of targets) expect(processOf.get(t)).toBe(t in env.electrum ? t : t.replace(/-rest$/, ''));
    const touched = new Set<string>();
    const sums = new Map<string, { touches: number; warm: number; n: number }>();
    for (const c of coldCalls) {
      const key = `${processOf.get(c.server)}/${c.pass}/${c.address}`;
      if (touched.has(key)) continue;
      touched.add(key);
      if (c.status !== 'ok' || c.warm === null) continue;
      const sum = sums.get(c.server) ?? { touches: 0, warm: 0, n: 0 };
      sums.set(c.server, { touches: sum.touches + c.latency, warm: sum.warm + c.warm, n: sum.n + 1 });
    }
    expect([...sums.keys()].sort()).toEqual([...targets].sort());
    for (const [server, sum] of sums) {
      const stored = rows.filter((x) => x.server === server);
      expect(stored.reduce((n, x) => n + x.first_touches, 0)).toBe(sum.n);
      expect(stored.reduce((n, x) => n + x.first_touch_sum_ns, 0)).toBe(sum.touches);
      expect(stored.reduce((n, x) => n + x.warm_median_sum_ns, 0)).toBe(sum.warm);
    }
    process.stdout.write(`cold first touches against warm medians: ${[...sums].map(([server, sum]) => `${server} ${(sum.touches / sum.warm).toFixed(2)} (${sum.n})`).join(', ')}\n`);
    // The assertion the issue asks for, on the figure noise cannot cross, for the servers whose cold start it measures (see the top of the file).
    const ownIndex = ['electrumx', 'esplora', 'fulcrum', 'mempool-electrs'].filter((s) => sums.has(s));
    expect(ownIndex).toContain('electrumx');
    for (const server of ownIndex) {
      const sum = sums.get(server)!;
      expect({ server, firstTouchesAtLeastWarm: sum.touches >= sum.warm }).toEqual({ server, firstTouchesAtLeastWarm: true });
    }

    // The JSON says the same figures as the store, per server and method.
    const json = JSON.parse(run.stdout) as { cold: Array<{ server: string; method: string; latencyNs: { p50: number }; warmP50Ns: number; firstTouches: { sumNs: number; warmMedianSumNs: number } }> };
    expect(json.cold.map((c) => [c.server, c.method, c.latencyNs.p50, c.warmP50Ns, c.firstTouches.sumNs, c.firstTouches.warmMedianSumNs]).sort()).toEqual(
      rows.map((r) => [r.server, r.method, r.p50_ns, r.warm_p50_ns, r.first_touch_sum_ns, r.warm_median_sum_ns]).sort(),
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
