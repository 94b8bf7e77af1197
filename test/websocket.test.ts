/**
 * The Electrum protocol over WebSocket on the lab's real servers: ElectrumX (aiorpcx's WSTransport)
 * and Fulcrum serve ws:// and wss://, and a bench through the CLI as a user runs it answers the
 * lab's ground truth (`--verify` against the dataset the lab's chain was generated with) with 0
 * mismatches on each, storing the address as given; wss:// is verified as ssl:// is. A load at a
 * fixed rate has every request answered, and whole wallets synced over it match their balances.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { describeBuilt, labEnv } from './lab/env';
import { readDataset } from '../src/dataset/line';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const BENCH = path.join(ROOT, 'src', 'cli', 'bench.ts');
const LOAD = path.join(ROOT, 'src', 'cli', 'load.ts');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-websocket-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function bench(args: string[]) {
  return spawnSync(TSX, [BENCH, '--no-progress', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
}

function rows<T>(db: string, sql: string): T[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all() as T[];
  } finally {
    d.close();
  }
}

function answersGroundTruth(server: 'electrumx' | 'fulcrum'): void {
  test(`${server} over ws:// and wss://: every call answered, 0 mismatches against the lab's ground truth`, () => {
    const env = labEnv();
    const ws = env.websocket[server];
    if (!ws) throw new Error(`lab status lists no WebSocket listeners for ${server}`);
    const lines = readDataset(env.datasetPath).lines.length;
    const db = path.join(tmp, `${server}.sqlite`);
    const urls = { ws: `ws://${ws.ws.host}:${ws.ws.port}`, wss: `wss://${ws.wss.host}:${ws.wss.port}` };
    const r = bench([
      '--server', `${server}-ws=${server}@${urls.ws}`,
      '--server', `${server}-wss=${server}@${urls.wss}`,
      '--ca', ws.wss.caFile,
      '--dataset', env.datasetPath, '--passes', '2', '--warmup', '1', '--verify', '--json', '--db', db,
    ]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const out = JSON.parse(r.stdout);
    expect(out.samples).toBe(2 * lines * 3 * 2);
    const bad = rows<{ n: number }>(db, "SELECT count(*) n FROM samples WHERE status <> 'ok' OR mismatch IS NOT 0")[0].n;
    expect(bad).toBe(0);
    for (const s of out.summaries) expect({ server: s.server, ok: s.ok, mismatches: s.mismatches }).toEqual({ server: s.server, ok: lines, mismatches: 0 });
    const servers = rows<{ name: string; url: string; software: string }>(db, 'SELECT name, url, software FROM run_servers ORDER BY id');
    expect(servers.map(({ name, url }) => ({ name, url }))).toEqual([
      { name: `${server}-ws`, url: urls.ws },
      { name: `${server}-wss`, url: urls.wss },
    ]);
    for (const s of servers) expect(s.software).toMatch(server === 'electrumx' ? /ElectrumX/i : /Fulcrum/i);
  });
}

describe('ElectrumX', () => {
  answersGroundTruth('electrumx');

  test('wss:// without --ca: exit 2, one line naming the server and the certificate, no database', () => {
    const env = labEnv();
    const wss = env.websocket.electrumx!.wss;
    const db = path.join(tmp, 'refused.sqlite');
    const r = bench(['--server', `electrumx@wss://${wss.host}:${wss.port}`, '--dataset', env.datasetPath, '--passes', '2', '--limit', '2', '--db', db]);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`wss://${wss.host}:${wss.port}.*(certificate|verify)`, 'i'));
    expect(fs.existsSync(db)).toBe(false);
  });
});

describeBuilt('fulcrum', 'Fulcrum', () => {
  answersGroundTruth('fulcrum');

  test('wallets synced over wss:// (the bdk workload): every balance and transaction count as the wallets file says', () => {
    const env = labEnv();
    const wss = env.websocket.fulcrum!.wss;
    const db = path.join(tmp, 'wallets.sqlite');
    const r = bench(['--server', `fulcrum-wss=fulcrum@wss://${wss.host}:${wss.port}`, '--ca', wss.caFile, '--workload', 'bdk', '--wallets', env.walletsPath, '--passes', '2', '--warmup', '1', '--verify', '--json', '--db', db]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const [row] = JSON.parse(r.stdout).rows;
    const wallets = fs.readFileSync(env.walletsPath, 'utf8').trim().split('\n').length;
    expect({ wallets: row.wallets, syncs: row.syncs, failed: row.failed, mismatched: row.mismatched }).toEqual({ wallets, syncs: 2 * wallets, failed: 0, mismatched: 0 });
  });
});

test('load at a fixed rate over ws://: every scheduled request answered', () => {
  const env = labEnv();
  const ws = env.websocket.electrumx!.ws;
  const r = spawnSync(TSX, [LOAD, '--no-progress', '--server', `electrumx-ws=electrumx@ws://${ws.host}:${ws.port}`, '--dataset', env.datasetPath, '--rate', '20', '--duration', '3s', '--json', '--db', path.join(tmp, 'load.sqlite')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  expect(r.status).toBe(0);
  const [s] = JSON.parse(r.stdout).servers;
  expect({ url: s.url, scheduled: s.scheduled, outcomes: s.outcomes }).toEqual({ url: `ws://${ws.host}:${ws.port}`, scheduled: 60, outcomes: { ok: 60 } });
});
