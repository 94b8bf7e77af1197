/**
 * `--out prometheus-rw=URL` into the lab's real Prometheus (Debian's 2.42, native histograms on):
 * what its query API says of a run must be what the run's summary says.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { labEnv } from './lab/env';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'bin', 'electrum-bench.js');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-prometheus-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function query(promql: string): Promise<number | undefined> {
  const res = await fetch(`${labEnv().prometheus.url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { result: Array<{ value: [number, string] }> } };
  const first = body.data.result[0];
  return first ? Number(first.value[1]) : undefined;
}

interface ServerSummary {
  answered: number;
  sent: number;
  ok: number;
  latencyMs: { p50: number; p99: number };
}

/** Within one native bucket (schema 5: neighbouring bounds differ by 2^(1/32), 2.2 %), and HDR's 0.1 %. */
const withinABucket = (a: number, b: number) => Math.abs(Math.log2(a / b)) <= 1 / 32 + Math.log2(1.001);

test('a load pushed to the lab Prometheus reads back with the summary\'s answered total and latency quantiles, beside the servers\' own metrics', async () => {
  // A server name no other run used: the lab's Prometheus keeps every test's series.
  const name = `rw${crypto.randomBytes(4).toString('hex')}`;
  const { host, port } = labEnv().electrum.electrumx;
  const r = spawnSync(
    process.execPath,
    [LAUNCHER, 'load', '--server', `${name}=electrumx@${host}:${port}`, '--dataset', labEnv().datasetPath, '--rate', '100', '--duration', '6s', '--no-progress', '--json',
      '--db', path.join(tmp, 'rw.sqlite'), '--out', `prometheus-rw=${labEnv().prometheus.remoteWrite}`],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  expect(r.stderr).not.toMatch(/prometheus-rw/); // no failed writes reported
  expect(r.status).toBe(0);
  const summary = (JSON.parse(r.stdout) as { servers: ServerSummary[] }).servers[0];
  expect(summary.answered).toBeGreaterThan(100);

  const answered = await query(`sum(electrum_bench_requests_total{server="${name}",outcome!~"timeout|disconnect|dropped"})`);
  expect(answered).toBe(summary.answered);
  expect(await query(`sum(electrum_bench_requests_total{server="${name}",outcome="ok"})`)).toBe(summary.ok);
  expect(await query(`histogram_count(sum(electrum_bench_request_duration_seconds{server="${name}"}))`)).toBe(summary.ok);
  for (const [q, ms] of [[0.5, summary.latencyMs.p50], [0.99, summary.latencyMs.p99]] as const) {
    const seconds = await query(`histogram_quantile(${q}, sum(electrum_bench_request_duration_seconds{server="${name}"}))`);
    expect(seconds).toBeDefined();
    expect({ q, prometheusMs: seconds! * 1000, summaryMs: ms, withinABucket: withinABucket(seconds! * 1000, ms) }).toEqual(expect.objectContaining({ withinABucket: true }));
  }
  // The servers that export metrics are scraped by the same Prometheus.
  expect(await query('up{job="electrs"}')).toBe(1);
}, 180_000);
