/**
 * The report over load runs, from synthetic databases written through the stores the CLIs use:
 * a load run (two servers, a one-minute ramp, errors, dropped requests, a find-max search), a bench
 * run, both, and a bench database from before the load tables. Rendered through writeReport, the
 * entry point of `npm run report`; no lab.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import Database from 'better-sqlite3';
import { ResultsStore } from '../../src/store/results';
import { migrate } from '../../src/store/schema';
import { computeStatistics } from '../../src/store/statistics';
import { LoadStore } from '../../src/store/load-results';
import type { IntervalCell } from '../../src/core/load-types';
import type { MethodName } from '../../src/core/methods';
import { reportOptions } from '../../src/report/options';
import { readModels, writeReport } from '../../src/report/report';
import { CHARTS } from '../../src/report/charts/definitions';
import { UserError } from '../../src/core/user-error';
import { executorFor } from '../../src/engine/executors/registry';
import type { LoadModel } from '../../src/engine/executors/registry';
import { compareDatabases, compareMarkdown, deltaTitle, regressions } from '../../src/report/compare';

const INTERVALS = 60;
const MODEL: LoadModel = { kind: 'stages', startRate: 10, stages: [{ durationMs: INTERVALS * 1000, target: 10 * (INTERVALS + 1) }] };
const SERVERS = ['alpha', 'beta'] as const;
const METHODS: MethodName[] = ['balance', 'history', 'utxos'];
const LOAD_SUFFIXES = ['throughput', 'latency', 'errors', 'find-max', 'percentiles'];

let tmp: string;

/** A deterministic stream in [0, 1): the same database on every run of the test. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Written {
  runId: number;
  /** Every ok latency written, µs, per server: the exact percentiles the model must approximate. */
  okUs: Record<string, number[]>;
  replies: Record<string, number[]>; // per interval: ok + error replies
  dropped: Record<string, number>;
  errors: Record<string, Record<string, number>>;
}

/** `slower`: every ok latency times this, from another random stream (another run of a slower server). */
function writeLoadRun(db: string, slower = 1): Written {
  const results = ResultsStore.open(db);
  const store = new LoadStore(results);
  const { runId, serverIds } = store.createRun(
    {
      tool_version: '0.0.0-test',
      git_commit: null,
      config: { note: 'synthetic' },
      model: MODEL,
      model_text: executorFor(MODEL).describe(MODEL),
      dataset_path: 'datasets/synthetic.jsonl',
      dataset_hash: null,
      shard: null,
    },
    SERVERS.map((name, i) => ({ name, profile: i === 0 ? 'electrumx' : 'electrs', url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null })),
  );
  const written: Written = { runId, okUs: {}, replies: {}, dropped: {}, errors: {} };
  const t0 = Date.UTC(2026, 10, 24, 12, 0, 0);
  SERVERS.forEach((server, si) => {
    const next = random(17 + si + (slower === 1 ? 0 : 1000));
    written.okUs[server] = [];
    written.replies[server] = [];
    written.dropped[server] = 0;
    written.errors[server] = {};
    for (let i = 0; i < INTERVALS; i++) {
      const target = 10 * (i + 1);
      const cells: IntervalCell[] = [];
      let replies = 0;
      let sent = 0;
      for (const [mi, method] of METHODS.entries()) {
        const ok = Math.round(target / 3) + mi;
        const h = build({ numberOfSignificantValueDigits: 3 });
        for (let k = 0; k < ok; k++) {
          // beta slows down as the rate climbs, with an occasional long tail
          const us = Math.round(slower * ((si === 0 ? 800 : 1500 + 40 * i) * (1 + 3 * next()) + (next() < 0.01 ? 200_000 * next() : 0)));
          h.recordValue(us);
          written.okUs[server].push(us);
        }
        cells.push({ method, outcome: 'ok', count: ok, bytes: ok * 120, latency: encodeIntoCompressedBase64(h), service: encodeIntoCompressedBase64(h) });
        replies += ok;
        sent += ok;
      }
      if (server === 'beta' && i >= 40 && i < 45) {
        const timeouts = 2 + (i % 3);
        const eh = build({ numberOfSignificantValueDigits: 3 });
        for (let k = 0; k < timeouts; k++) eh.recordValue(30_000_000);
        cells.push({ method: 'history', outcome: 'timeout', count: timeouts, bytes: 0, latency: encodeIntoCompressedBase64(eh), service: encodeIntoCompressedBase64(eh) });
        written.errors[server].timeout = (written.errors[server].timeout ?? 0) + timeouts;
        // Timeouts and disconnects are no answers: they are not part of the achieved rate.
        sent += timeouts;
        if (i === 42) {
          cells.push({ method: 'balance', outcome: 'disconnect', count: 1, bytes: 0, latency: null, service: null });
          written.errors[server].disconnect = 1;
          sent += 1;
        }
      }
      let dropped = 0;
      if (server === 'beta' && i >= 50) {
        dropped = i - 45;
        cells.push({ method: 'utxos', outcome: 'dropped', count: dropped, bytes: 0, latency: null, service: null });
        written.dropped[server] += dropped;
      }
      written.replies[server].push(replies);
      store.addInterval(runId, serverIds.get(server)!, {
        server,
        index: i,
        startMs: t0 + si * 120_000 + i * 1000,
        lengthMs: 1000,
        targetRate: target,
        vus: null,
        sent,
        dropped,
        inFlight: 3,
        lag: null,
        loopDelayP99Us: 900,
        cells,
      });
    }
  });
  store.finishRun(runId, {
    status: 'completed',
    generatorBound: true,
    generator: {
      alpha: { lagP99Us: 200, lagMaxUs: 900, loopDelayP99Ms: 1.2, cpuUtilisation: 0.3, bound: false, reasons: [] },
      beta: { lagP99Us: 2100, lagMaxUs: 9000, loopDelayP99Ms: 3, cpuUtilisation: 0.9, bound: true, reasons: ['scheduling lag p99 2.1 ms > 1 ms'] },
    },
    thresholds: [
      { threshold: 'latency:p(99)<250', server: 'alpha', pass: true },
      { threshold: 'latency:p(99)<250', server: 'beta', pass: false },
    ],
    findMax: SERVERS.map((server, si) => ({
      server,
      slo: { percentile: 99, thresholdMs: 20 },
      steps: [100, 200, 400, 800].map((rate, step) => ({
        step,
        targetRate: rate,
        achievedRate: rate * (si === 0 ? 0.99 : 0.97 - 0.05 * step),
        p50Ms: 2 + step * (si + 1),
        p99Ms: 5 + step * step * 4 * (si + 1),
        errorRate: step === 3 ? 0.01 : 0,
        passed: 5 + step * step * 4 * (si + 1) <= 20,
      })),
      maxSustainableRate: si === 0 ? 400 : 200,
      ...(si === 1 ? { statement: 'beta: max sustainable throughput 200/s under p99<20ms' } : {}),
    })),
  });
  results.close();
  return written;
}

function writeBenchRun(db: string): void {
  const store = ResultsStore.open(db);
  const lines = [1, 3, 9, 27, 81].map((n, i) => ({
    address: null,
    scripthash: i.toString(16).padStart(64, '0'),
    type: 'nonstandard' as const,
    txCount: n,
    utxoCount: Math.ceil(n / 2),
    balance: { confirmed: n * 1000, unconfirmed: 0 },
  }));
  const { runId, serverIds } = store.createRun(
    {
      started_at: '2026-11-24T10:00:00.000Z',
      tool_version: '0.0.0-test',
      git_commit: null,
      node_version: 'v20.0.0',
      host_json: '{}',
      config_json: '{}',
      dataset_id: 'synthetic',
      dataset_path: 'datasets/synthetic.jsonl',
      dataset_hash: '0'.repeat(64),
      dataset_lines: lines.length,
      passes: 2,
      warmup: 0,
      methods: METHODS.join(','),
      call_order: 'address',
    },
    ['electrumx', 'electrs'].map((name, i) => ({ name, profile: name, url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null, banner: null, features_json: null })),
    lines,
  );
  store.setRun(runId);
  for (const [si, serverId] of serverIds.entries()) {
    for (let pass = 0; pass < 2; pass++) {
      for (const [addressIdx, l] of lines.entries()) {
        for (const method of METHODS) {
          const failed = si === 1 && addressIdx === 4 && method === 'history' && pass === 1;
          store.add({
            serverId,
            pass,
            warmup: false,
            addressIdx,
            method,
            atMs: Date.UTC(2026, 10, 24, 10) + pass * 1000 + addressIdx,
            latencyNs: BigInt(Math.round((1 + si) * (0.5 + l.txCount * 0.02 + pass * 0.01) * 1e6)),
            responseBytes: 100,
            resultSize: l.txCount,
            status: failed ? 'timeout' : 'ok',
            error: failed ? 'timed out' : null,
            tipHeight: 500,
            mismatch: null,
          });
        }
      }
    }
  }
  store.flush();
  computeStatistics(store, runId);
  store.finishRun(runId, 'completed', {});
  store.close();
}

const BENCH_FILES = ['index.html', 'medians.csv', 'summary.md', ...CHARTS.flatMap((c) => [`${c.id}.png`, `${c.id}.svg`, `${c.id}.vl.json`])].sort();
const loadFiles = (runId: number) => LOAD_SUFFIXES.flatMap((s) => ['png', 'svg', 'vl.json'].map((ext) => `load-${runId}-${s}.${ext}`));

function exactPercentile(sorted: number[], percentile: number): number {
  return sorted[Math.max(0, Math.ceil((percentile / 100) * sorted.length) - 1)];
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-load-report-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a database with one load run', () => {
  let db: string;
  let out: string;
  let written: Written;
  let files: string[];

  beforeAll(async () => {
    db = path.join(tmp, 'load.sqlite');
    out = path.join(tmp, 'report-load');
    written = writeLoadRun(db);
    files = await writeReport(reportOptions({ db, out }));
  });

  test('writes an SVG, PNG and spec per load chart, index.html and summary.md, all non-empty (no medians.csv)', () => {
    const expected = [...loadFiles(written.runId), 'index.html', 'summary.md'].sort();
    expect([...files].sort()).toEqual(expected);
    expect(fs.readdirSync(out).sort()).toEqual(expected);
    for (const f of expected) expect(fs.statSync(path.join(out, f)).size).toBeGreaterThan(200);
    for (const f of expected.filter((n) => n.endsWith('.png'))) expect(fs.readFileSync(path.join(out, f)).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  test('reading the database for the report left nothing beside it (no -wal, no -shm)', () => {
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('load.sqlite'))).toEqual(['load.sqlite']);
  });

  test("every chart's SVG names both servers", () => {
    for (const suffix of LOAD_SUFFIXES) {
      const svg = fs.readFileSync(path.join(out, `load-${written.runId}-${suffix}.svg`), 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      for (const server of SERVERS) expect({ suffix, has: svg.includes(server) }).toEqual({ suffix, has: true });
    }
  });

  test('the model holds what was written: achieved rates, dropped and error totals, whole-run p99 within 0.1 %', () => {
    const [run] = readModels(reportOptions({ db, out })).load;
    expect(run.run.id).toBe(written.runId);
    expect(run.chosen).toBe('latest');
    expect(run.servers.map((s) => s.label)).toEqual([...SERVERS]);
    for (const s of run.servers) {
      expect(s.intervals).toHaveLength(INTERVALS);
      expect(s.intervals.map((p) => p.achievedRate)).toEqual(written.replies[s.label]);
      expect(s.intervals.map((p) => p.targetRate)).toEqual(Array.from({ length: INTERVALS }, (_, i) => 10 * (i + 1)));
      expect(s.intervals[0].t).toBe(1);
      expect(s.intervals[INTERVALS - 1].t).toBe(INTERVALS);
      expect(s.totals.dropped).toBe(written.dropped[s.label]);
      expect(s.intervals.reduce((n, p) => n + p.dropped, 0)).toBe(written.dropped[s.label]);
      expect(s.totals.errors).toEqual(written.errors[s.label]);
      expect(s.totals.ok).toBe(written.okUs[s.label].length);
      expect(s.latency.totalCount).toBe(written.okUs[s.label].length);
      const sorted = [...written.okUs[s.label]].sort((a, b) => a - b);
      for (const [q, got] of [[50, s.totals.p50Ms], [90, s.totals.p90Ms], [99, s.totals.p99Ms]] as const) {
        const exact = exactPercentile(sorted, q) / 1000;
        expect({ q, server: s.label, within: Math.abs(got! - exact) / exact <= 0.001 }).toEqual({ q, server: s.label, within: true });
      }
      expect(Math.abs(s.totals.maxMs! - sorted[sorted.length - 1] / 1000) / (sorted[sorted.length - 1] / 1000)).toBeLessThanOrEqual(0.001);
      // The spectrum climbs from the minimum to the maximum, one point per tenth of a nine.
      expect(s.spectrum[0].x).toBe(1);
      expect(s.spectrum[s.spectrum.length - 1].ms).toBe(s.totals.maxMs);
      for (let i = 1; i < s.spectrum.length; i++) expect(s.spectrum[i].ms).toBeGreaterThanOrEqual(s.spectrum[i - 1].ms);
    }
    const beta = run.servers[1];
    expect(beta.intervals[42].errors).toEqual({ timeout: 2, disconnect: 1 });
    // 2 timeouts and a disconnect that second: errors, and no answers.
    expect(beta.intervals[42].achievedRate).toBe(beta.intervals[42].ok);
    expect(beta.intervals[42].errorCount).toBe(3);
    expect(beta.generator).toEqual({ bound: true, reasons: ['scheduling lag p99 2.1 ms > 1 ms'] });
    expect(run.findMax?.map((f) => f.maxSustainableRate)).toEqual([400, 200]);
  });

  test('the find-max spec has the SLO rule and both maxima; the spectrum axis is labelled in nines', () => {
    const fm = JSON.parse(fs.readFileSync(path.join(out, `load-${written.runId}-find-max.vl.json`), 'utf8'));
    const values = fm.data.values as Array<{ layer: string; server?: string; ms?: number; achieved?: number }>;
    expect(values.filter((v) => v.layer === 'slo').map((v) => v.ms)).toEqual([20]);
    expect(values.filter((v) => v.layer === 'max').map((v) => [v.server, v.achieved])).toEqual([['alpha', 400], ['beta', 200]]);
    expect(values.filter((v) => v.layer === 'step')).toHaveLength(8);
    expect(fs.readFileSync(path.join(out, `load-${written.runId}-find-max.svg`), 'utf8')).toContain('beta: max sustainable throughput 200/s under p99&lt;20ms');
    const spectrum = fs.readFileSync(path.join(out, `load-${written.runId}-percentiles.svg`), 'utf8');
    for (const label of ['>0%<', '>90%<', '>99%<', '>99.9%<', '>99.99%<']) expect(spectrum).toContain(label);
    const tp = JSON.parse(fs.readFileSync(path.join(out, `load-${written.runId}-throughput.vl.json`), 'utf8'));
    expect(tp.data.values).toHaveLength(2 * 2 * INTERVALS); // target and achieved, per server and second
  });

  test('index.html and summary.md carry the load table and link every chart', () => {
    const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
    const md = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(html).toContain('<h2>Load runs</h2>');
    expect(html).toContain(`Load run ${written.runId} — the latest finished load run`);
    expect(html).toContain('yes: scheduling lag p99 2.1 ms &gt; 1 ms');
    expect(html).not.toMatch(/<script/i);
    expect((html.match(/<figure class="chart"/g) ?? []).length).toBe(LOAD_SUFFIXES.length);
    expect(md).toContain('## Load runs');
    expect(md).toMatch(/\| server \| model \| duration \| target \| achieved\/s \| p50 ms \| p99 ms \| max ms \| errors \| dropped \| generator-bound \| thresholds \|/);
    const alpha = md.split('\n').find((l) => l.startsWith('| alpha |'))!;
    const beta = md.split('\n').find((l) => l.startsWith('| beta |'))!;
    expect(alpha).toMatch(/\| open ramp, 10 → 610\/s \| 60\.0 s \| 10–600\/s \|/);
    expect(alpha).toMatch(/\| no \| pass \(1\) \|$/);
    const { timeout, disconnect } = written.errors.beta;
    expect(beta).toContain(`| disconnect ${disconnect}, timeout ${timeout} | ${written.dropped.beta} (`);
    expect(beta).toMatch(/\| FAIL: latency:p\(99\)<250 \|$/);
    for (const f of loadFiles(written.runId).filter((n) => n.endsWith('.png'))) expect(md).toContain(`](${f})`);
  });
});

describe('bench runs', () => {
  let benchDb: string;
  let benchFiles: string[];

  beforeAll(async () => {
    benchDb = path.join(tmp, 'bench.sqlite');
    writeBenchRun(benchDb);
    benchFiles = await writeReport(reportOptions({ db: benchDb, out: path.join(tmp, 'report-bench') }));
  });

  test('a database with only bench runs renders exactly the bench files, with no load section', () => {
    expect([...benchFiles].sort()).toEqual(BENCH_FILES);
    expect(fs.readdirSync(path.join(tmp, 'report-bench')).sort()).toEqual(BENCH_FILES);
    const html = fs.readFileSync(path.join(tmp, 'report-bench', 'index.html'), 'utf8');
    const md = fs.readFileSync(path.join(tmp, 'report-bench', 'summary.md'), 'utf8');
    expect(html).not.toContain('Load run');
    expect(md).not.toContain('Load run');
    expect(md.startsWith('# Electrum server latency report\n\nFrom `')).toBe(true);
  });

  test('a bench database from before the load tables (schema 2) renders the same files, byte for byte', async () => {
    // The same bench run, in the tables schema 2 had (as that version wrote them).
    const old = path.join(tmp, 'bench-v2.sqlite');
    const v2 = new Database(old);
    migrate(v2, 2);
    v2.prepare('ATTACH ? AS cur').run(benchDb);
    v2.exec(`
      INSERT INTO runs SELECT r.id, r.started_at, r.finished_at, r.status, r.tool_version, r.git_commit, r.node_version, r.host_json, r.config_json,
        b.dataset_id, r.dataset_path, r.dataset_hash, b.dataset_lines, b.passes, b.warmup, b.methods, b.selfcheck_json, b.pool_json, b.call_order, r.holder
        FROM cur.runs r JOIN cur.bench_runs b ON b.run_id = r.id;
      INSERT INTO servers SELECT id, run_id, name, profile, url, software, protocol, banner, features_json FROM cur.run_servers;
      INSERT INTO addresses SELECT * FROM cur.addresses;
      INSERT INTO samples SELECT id, run_id, server_id, pass, warmup, address_idx, method, at_ms, latency_ns, response_bytes, result_size, status, error,
        tip_height, mismatch FROM cur.samples;
      INSERT INTO medians SELECT * FROM cur.medians;
      INSERT INTO summaries SELECT * FROM cur.summaries;
      INSERT INTO run_sessions SELECT * FROM cur.run_sessions;
    `);
    v2.close();
    const out = path.join(tmp, 'report-bench-v2');
    expect((await writeReport(reportOptions({ db: old, out }))).sort()).toEqual(BENCH_FILES);
    for (const f of BENCH_FILES.filter((n) => !/\.(html|md)$/.test(n))) {
      expect({ f, same: fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(tmp, 'report-bench', f))) }).toEqual({ f, same: true });
    }
  });

  test('with a load run beside it, both are reported by default; --run or --load-run alone restricts to what is named', async () => {
    const both = path.join(tmp, 'both.sqlite');
    fs.copyFileSync(benchDb, both);
    const { runId } = writeLoadRun(both);
    const all = await writeReport(reportOptions({ db: both, out: path.join(tmp, 'report-both') }));
    expect([...all].sort()).toEqual([...BENCH_FILES, ...loadFiles(runId)].sort());
    const html = fs.readFileSync(path.join(tmp, 'report-both', 'index.html'), 'utf8');
    expect(html.indexOf('<h2>Charts</h2>')).toBeLessThan(html.indexOf('<h2>Load runs</h2>'));

    const benchOnly = await writeReport(reportOptions({ db: both, run: '1', out: path.join(tmp, 'report-run') }));
    expect([...benchOnly].sort()).toEqual(BENCH_FILES);
    const loadOnly = await writeReport(reportOptions({ db: both, loadRun: [String(runId)], out: path.join(tmp, 'report-load-run') }));
    expect([...loadOnly].sort()).toEqual([...loadFiles(runId), 'index.html', 'summary.md'].sort());
    expect(fs.readFileSync(path.join(tmp, 'report-load-run', 'summary.md'), 'utf8')).toContain(`### Load run ${runId}\n`);

    expect(() => readModels(reportOptions({ db: both, loadRun: '7', out: tmp }))).toThrow(new UserError(`--load-run: no load run 7 in ${both} (load runs: ${runId})`));
    await expect(writeReport(reportOptions({ db: both, loadRun: String(runId), baseline: 'electrumx', out: tmp }))).rejects.toThrow(/--baseline: apply to bench runs/);
  });
});

test('report compare on load runs: a run against itself is no change; a run 1.5 times as slow is slower, and a regression', () => {
  const a = path.join(tmp, 'compare-a.sqlite');
  const slow = path.join(tmp, 'compare-slow.sqlite');
  writeLoadRun(a);
  writeLoadRun(slow, 1.5);
  const same = compareDatabases(a, a);
  expect(same.rows).toEqual([]); // no bench run in either
  expect(same.load!.map((r) => `${r.server} ${r.percentile} ${r.verdict.verdict}`)).toEqual(['alpha p50 no change', 'alpha p99 no change', 'beta p50 no change', 'beta p99 no change']);
  for (const r of same.load!) expect(r.intervals).toEqual([INTERVALS, INTERVALS]);
  const c = compareDatabases(a, slow);
  const p50 = c.load!.filter((r) => r.percentile === 'p50');
  for (const r of p50) {
    expect(r.verdict.verdict).toBe('slower');
    expect(r.verdict.ciPct![0]).toBeGreaterThan(0);
    expect(r.verdict.changePct!).toBeGreaterThan(30);
    expect(r.verdict.changePct!).toBeLessThan(70);
  }
  expect(regressions(c, 10).map((r) => r.what)).toEqual(expect.arrayContaining(['alpha load p50', 'beta load p50']));
  expect(regressions(same, 0)).toEqual([]);
  const md = compareMarkdown(c, deltaTitle(a, slow));
  expect(md).toContain('## Load');
  expect(md).toMatch(/^\| alpha \| p50 \| 60 \/ 60 \| [\d.]+ \| [\d.]+ \| slower \+\d+\.\d % \[\+/m);
  expect(md).not.toContain('No (server, method, address)'); // no bench section when neither has a bench run
  const benchOnly = path.join(tmp, 'compare-bench.sqlite');
  writeBenchRun(benchOnly);
  expect(() => compareDatabases(a, benchOnly)).toThrow(`compare: nothing of one kind in both: ${a} has a finished load run; ${benchOnly} has a completed bench run`);
});
