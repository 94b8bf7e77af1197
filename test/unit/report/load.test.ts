/**
 * The report over load runs, from synthetic databases written through the stores the CLIs use:
 * a load run (two servers, a one-minute ramp, errors, dropped requests, a find-max search), a bench
 * run, both, and a bench database from before the load tables. Rendered through writeReport, the
 * entry point of `npm run report`; no lab.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from '../../../src/store/schema';
import { reportOptions } from '../../../src/report/options';
import { readModels, writeReport } from '../../../src/report/report';
import { CHARTS } from '../../../src/report/charts/definitions';
import { UserError } from '../../../src/core/user-error';
import { INTERVALS, SERVERS, writeBenchRun, writeLoadRun, type Written } from '../../support/synthetic-runs';

const LOAD_SUFFIXES = ['throughput', 'latency', 'errors', 'find-max', 'percentiles'];

let tmp: string;

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
