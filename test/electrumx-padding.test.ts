/**
 * The lab's ElectrumX restarted as it ships (ELECTRUM_BENCH_ELECTRUMX_PADDING=on: its TCP replies
 * padded and a small one held up to 1 s, electrumx/server/transport.py), then as the lab runs it
 * again. A short bench over TCP and over ws:// of that one server: the TCP figures carry the note
 * naming the hold, printed, in the JSON and in the report read back from the stored run; the
 * WebSocket figures carry none, and their median is far below the hold the TCP median sits near.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { labEnv } from './lab/env';
import { labRestartServer } from '../src/lab/lab';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const cli = (script: string, args: string[]) => spawnSync(TSX, [path.join(ROOT, 'src', 'cli', script), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });

// Seen at the handshake (a small reply right after a large one held ~1 s), not guessed from the version.
const HOLD_NOTE = /^electrumx-tcp: ElectrumX \S+ over TCP\/TLS pads its replies and holds a small one up to 1 s .*: seen here \(a small reply right after a large one took \d+ ms\), so these latencies contain that hold .*PaddedRSTransport\.WAIT_FOR_BUFFER_GROWTH_SECONDS.*ws:\/\//m;

let tmp: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-padding-'));
  process.env.ELECTRUM_BENCH_ELECTRUMX_PADDING = 'on';
  await labRestartServer('electrumx');
}, 180_000);
afterAll(async () => {
  delete process.env.ELECTRUM_BENCH_ELECTRUMX_PADDING;
  await labRestartServer('electrumx');
  fs.rmSync(tmp, { recursive: true, force: true });
}, 180_000);

function servers(): string[] {
  const env = labEnv();
  const tcp = env.electrum.electrumx;
  const ws = env.websocket.electrumx?.ws;
  if (!ws) throw new Error('lab status lists no WebSocket listener for electrumx');
  return ['--server', `electrumx-tcp=electrumx@${tcp.host}:${tcp.port}`, '--server', `electrumx-ws=electrumx@ws://${ws.host}:${ws.port}`];
}

test('over TCP the hold is named (JSON, stored, report) and the median sits near it; over ws:// no note and a median far below', () => {
  const env = labEnv();
  const db = path.join(tmp, 'padded.sqlite');
  const r = cli('bench.ts', ['--no-progress', ...servers(), '--dataset', env.datasetPath, '--limit', '5', '--passes', '4', '--warmup', '2', '--methods', 'balance', '--json', '--db', db]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const out = JSON.parse(r.stdout);
  expect(out.replyHolds.map((h: { server: string }) => h.server)).toEqual(['electrumx-tcp']);
  expect(`electrumx-tcp: ${out.replyHolds[0].note}`).toMatch(HOLD_NOTE);
  const p50 = Object.fromEntries(out.summaries.map((s: { server: string; ok: number; latencyNs: { p50: number } }) => [s.server, { ok: s.ok, p50Ms: s.latencyNs.p50 / 1e6 }]));
  expect(p50['electrumx-tcp'].ok).toBe(10);
  expect(p50['electrumx-ws'].ok).toBe(10);
  // ElectrumX sends a session's first 1 KiB of replies (unpadded) at once, then holds each small
  // one until 1 s after its last write: the warm-up passes spend that budget, and a sequential
  // bench then waits most of the second on every counted call.
  expect(p50['electrumx-tcp'].p50Ms).toBeGreaterThan(500);
  expect(p50['electrumx-ws'].p50Ms).toBeLessThan(100);

  const report = path.join(tmp, 'report');
  const rep = cli('report.ts', ['--db', db, '--out', report]);
  expect({ status: rep.status, stderr: rep.stderr }).toEqual({ status: 0, stderr: '' });
  const md = fs.readFileSync(path.join(report, 'summary.md'), 'utf8');
  expect(md).toMatch(HOLD_NOTE);
  expect(md).not.toMatch(/^electrumx-ws: .*holds/m);
});

test('the printed summary says it in one line for the TCP server, before the table, and none for ws://', () => {
  const env = labEnv();
  const r = cli('bench.ts', ['--no-progress', ...servers(), '--dataset', env.datasetPath, '--limit', '2', '--passes', '1', '--warmup', '0', '--methods', 'balance', '--db', path.join(tmp, 'printed.sqlite')]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const lines = r.stdout.split('\n');
  const held = lines.filter((l) => / holds a small one /.test(l));
  expect(held).toHaveLength(1);
  expect(held[0]).toMatch(HOLD_NOTE);
  expect(lines.findIndex((l) => HOLD_NOTE.test(l))).toBeLessThan(lines.findIndex((l) => /^server\s+method/.test(l)));
});

test('a wallet bench says it too: one line for the TCP server, in its JSON and the report, none for ws://', () => {
  const env = labEnv();
  const db = path.join(tmp, 'wallets.sqlite');
  const r = cli('bench.ts', ['--no-progress', ...servers(), '--workload', 'electrum', '--wallets', env.walletsPath, '--limit', '1', '--passes', '1', '--warmup', '0', '--json', '--db', db]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const out = JSON.parse(r.stdout);
  expect(out.replyHolds.map((h: { server: string }) => h.server)).toEqual(['electrumx-tcp']);
  expect(`electrumx-tcp: ${out.replyHolds[0].note}`).toMatch(HOLD_NOTE);
  const report = path.join(tmp, 'wallet-report');
  const rep = cli('report.ts', ['--db', db, '--out', report]);
  expect({ status: rep.status, stderr: rep.stderr }).toEqual({ status: 0, stderr: '' });
  const md = fs.readFileSync(path.join(report, 'summary.md'), 'utf8');
  expect(md).toMatch(HOLD_NOTE);
  expect(md).not.toMatch(/^electrumx-ws: .*holds/m);
});

test('a load says it too: one line for the TCP server, in the summary export and the report, none for ws://', () => {
  const env = labEnv();
  const exported = path.join(tmp, 'load-summary.json');
  const r = cli('load.ts', ['--no-progress', ...servers(), '--dataset', env.datasetPath, '--mix', 'balance=1', '--rate', '5', '--duration', '2s', '--summary-export', exported, '--db', path.join(tmp, 'load.sqlite')]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const held = r.stdout.split('\n').filter((l) => / holds a small one /.test(l));
  expect(held).toHaveLength(1);
  expect(held[0]).toMatch(HOLD_NOTE);
  const json = JSON.parse(fs.readFileSync(exported, 'utf8'));
  expect(json.replyHolds.map((h: { server: string }) => h.server)).toEqual(['electrumx-tcp']);
  const report = path.join(tmp, 'load-report');
  const rep = cli('report.ts', ['--db', path.join(tmp, 'load.sqlite'), '--out', report]);
  expect({ status: rep.status, stderr: rep.stderr }).toEqual({ status: 0, stderr: '' });
  const md = fs.readFileSync(path.join(report, 'summary.md'), 'utf8');
  expect(md).toMatch(HOLD_NOTE);
  expect(md).not.toMatch(/^electrumx-ws: .*holds/m);
});
