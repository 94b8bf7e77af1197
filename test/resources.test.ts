/**
 * What the lab's servers cost, measured on the lab: `bench --lab` stores each server's resource
 * time series (the node and adapter too) and the Prometheus series scraped from electrs',
 * Esplora's and mempool's electrs' monitoring ports; `index-bench` rebuilds every lab server's index from an empty data
 * directory and reports its time, CPU, memory, disk and phases, leaving the lab up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';
import { LAB_SERVER_NAMES } from '../src/lab/servers/registry';

const ROOT = path.resolve(__dirname, '..');
const env = labEnv();
let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-resources-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function cli(command: string, args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli', `${command}.ts`), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
}

/** Every lab server this run has (those built from source only where their source could be had). */
const servers = LAB_SERVER_NAMES.filter((s) => env.electrum[s]);

test('bench --lab stores each server\'s resource time series and the electrs Prometheus series', () => {
  const db = path.join(tmp, 'bench.sqlite');
  const r = cli('bench', ['--lab', '--dataset', env.datasetPath, '--passes', '2', '--warmup', '1', '--db', db, '--no-progress', '--sample-every', '0.25']);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  expect(r.stdout).toMatch(/what the servers spent during bench run 1/);
  const d = new Database(db, { readonly: true });
  try {
    const rows = d
      .prepare(
        `SELECT target, count(*) AS n, max(rss_bytes) AS rss, max(cpu_user_s + cpu_system_s) - min(cpu_user_s + cpu_system_s) AS cpu,
                max(datadir_bytes) AS datadir FROM resource_samples WHERE build_id IS NULL AND run_id = 1 GROUP BY target`,
      )
      .all() as Array<{ target: string; n: number; rss: number | null; cpu: number | null; datadir: number | null }>;
    const by = new Map(rows.map((x) => [x.target, x]));
    for (const s of [...servers, 'node', 'adapter']) {
      const x = by.get(s)!;
      expect({ s, sampled: x.n >= 3, rss: (x.rss ?? 0) > 5 * 1024 * 1024, cpu: (x.cpu ?? -1) >= 0 }).toEqual({ s, sampled: true, rss: true, cpu: true });
    }
    for (const s of servers) expect({ s, datadir: (by.get(s)!.datadir ?? 0) > 100_000 }).toEqual({ s, datadir: true });
    expect(by.get('host')!.n).toBeGreaterThanOrEqual(3);
    // The servers answered calls: the one each serves spent CPU doing so.
    expect(by.get('electrumx')!.cpu).toBeGreaterThan(0);
    const electrsSeries = d.prepare(`SELECT count(DISTINCT name) AS names, count(*) AS n FROM metric_samples WHERE target = 'electrs' AND name LIKE 'electrs_%'`).get() as {
      names: number;
      n: number;
    };
    expect(electrsSeries.names).toBeGreaterThanOrEqual(2);
    expect(electrsSeries.n).toBeGreaterThanOrEqual(3 * electrsSeries.names);
  } finally {
    d.close();
  }
  // The report draws them beside the latency charts.
  const out = path.join(tmp, 'report');
  const rep = cli('report', ['--db', db, '--out', out]);
  expect(rep.status).toBe(0);
  const md = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
  expect(md).toMatch(/### What the servers spent — run 1/);
  for (const s of servers) expect(md).toMatch(new RegExp(`\\| ${s} \\| [\\d.]+ \\| [\\d.]+ \\| [\\d.]+ MiB \\|`));
  const svg = fs.readFileSync(path.join(out, 'resources-1.svg'), 'utf8');
  expect(svg).toContain('CPU % of one core');
  for (const s of servers) expect(svg).toContain(`>${s}<`);
});

test('index-bench rebuilds every lab server from empty: time, CPU, peak RSS, disk writes, size and phases; the lab stays up', () => {
  const db = path.join(tmp, 'index.sqlite');
  const r = cli('index-bench', ['--server', servers.join(','), '--repeat', '1', '--db', db, '--json']);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const out = JSON.parse(r.stdout) as {
    servers: Array<{ server: string; indexMs: number; cpuS: number; peakRssBytes: number; writeBytes: number; datadirBytes: number; phases: Array<{ name: string; share: number }> }>;
  };
  expect(out.servers.map((s) => s.server)).toEqual(servers);
  for (const s of out.servers) {
    expect(s.indexMs).toBeGreaterThan(50);
    expect(s.indexMs).toBeLessThan(120_000);
    expect(s.cpuS).toBeGreaterThan(0);
    expect(s.peakRssBytes).toBeGreaterThan(5 * 1024 * 1024);
    expect(s.writeBytes).toBeGreaterThan(0);
    expect(s.datadirBytes).toBeGreaterThan(100_000);
    // Phases cover the build: start-up first, and at least one phase read from the server's log.
    expect(s.phases[0].name).toBe('start-up');
    expect(s.phases.length).toBeGreaterThanOrEqual(2);
    const shares = s.phases.reduce((n, p) => n + p.share, 0);
    expect(shares).toBeGreaterThan(0.95);
    expect(shares).toBeLessThan(1.05);
  }
  const status = cli('lab', ['status', '--json']);
  expect(status.status).toBe(0);
  const d = new Database(db, { readonly: true });
  expect(d.prepare(`SELECT count(*) AS n FROM index_builds`).get()).toEqual({ n: servers.length });
  expect((d.prepare(`SELECT count(*) AS n FROM resource_samples WHERE build_id IS NOT NULL`).get() as { n: number }).n).toBeGreaterThan(servers.length);
  d.close();
  const reportDir = path.join(tmp, 'index-report');
  expect(cli('report', ['--db', db, '--out', reportDir]).status).toBe(0);
  expect(fs.readFileSync(path.join(reportDir, 'summary.md'), 'utf8')).toMatch(/### Index build — index-bench run 1/);
  const svg = fs.readFileSync(path.join(reportDir, 'index-1-phases.svg'), 'utf8');
  for (const s of servers) expect(svg).toContain(`>${s}<`);
});
