/**
 * Held wallets and block notifications on the lab's real servers: 500 wallets synced and held on
 * each server, a block mined after paying some of them, every held connection notified of it with
 * none missing, and every connection released at the end (the servers hold none of ours after the
 * run). This file mines and pays, so the lab's datasets no longer describe the chain afterwards:
 * test/lab/sequencer.js runs it after every other lab test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';
import { finished } from './support/command-process';
import { spawn } from 'node:child_process';
import { labMiner, labStatus } from '../src/lab/lab';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const env = labEnv();
const HELD = 500;

/** Server-side sockets of `port` still open (established, or closed by us but not by the server). */
function serverSockets(port: number): number {
  const open = new Set(['01', '08']); // ESTABLISHED, CLOSE_WAIT
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4) continue;
      if (parseInt(f[1].split(':')[1], 16) === port && open.has(f[3])) n++;
    }
  }
  return n;
}

interface Summary {
  server: string;
  held: number;
  holdFailed: number;
  rssPerHeldKiB: number | null;
  notify: { blocks: number; headers: { expected: number; ok: number; missing: number; duplicate: number; p50Ms: number }; scripthash: { expected: number; ok: number; missing: number; duplicate: number } };
}

test(`${HELD} held wallets per lab server hear of a mined block, none missing, and are released cleanly; the run's outputs say the same`, async () => {
  const servers = Object.entries(env.electrum);
  const before = new Map(servers.map(([name, e]) => [name, serverSockets(e.port)]));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-notify-'));
  const db = path.join(tmp, 'notify.sqlite');
  const lines = path.join(tmp, 'notify.jsonl');
  // Not spawnSync: the run takes minutes, and Prometheus is read over fetch's pool afterwards.
  const r = await finished(
    spawn(
      'bash',
      [path.join(ROOT, 'scripts', 'raise-fd-limit.sh'), TSX, path.join(ROOT, 'src', 'cli', 'load.ts'), '--lab', '--workload', 'electrum', '--hold', String(HELD), '--wallet-max-txs', '10', '--notify', '--blocks', '1', '--pay-wallets', '3', '--json', '--db', db,
        '--out', `json=${lines}`, '--out', `prometheus-rw=${env.prometheus.remoteWrite}`],
      { cwd: ROOT },
    ),
    600_000,
  );
  expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: r.stderr });
  const out = JSON.parse(r.stdout) as { servers: Summary[] };
  expect(out.servers.map((s) => s.server).sort()).toEqual(servers.map(([n]) => n).sort());
  for (const s of out.servers) {
    expect({ server: s.server, held: s.held, failed: s.holdFailed }).toEqual({ server: s.server, held: HELD, failed: 0 });
    expect(s.notify.blocks).toBe(1);
    expect(s.notify.headers).toMatchObject({ expected: HELD, ok: HELD, missing: 0 });
    // Three wallets paid; every held copy of them (the file's small wallets, held in turn) hears it.
    expect(s.notify.scripthash.expected).toBeGreaterThanOrEqual(3);
    expect(s.notify.scripthash).toMatchObject({ missing: 0, ok: s.notify.scripthash.expected });
    expect(s.notify.headers.p50Ms).toBeGreaterThan(0);
    if (s.server === 'electrumx' || s.server === 'fulcrum') expect(s.rssPerHeldKiB).not.toBeNull();
  }
  // The stored rows say the same as the summary: one headers row per held connection per server.
  const d = new Database(db, { readonly: true });
  const rows = d.prepare("SELECT v.name AS server, count(*) AS n FROM wallet_notifications n JOIN run_servers v ON v.id = n.server_id WHERE n.kind = 'headers' AND n.status = 'ok' GROUP BY v.name").all() as Array<{ server: string; n: number }>;
  d.close();
  for (const row of rows) expect(row.n).toBe(HELD);
  expect(rows).toHaveLength(servers.length);
  // What the run's watchers were sent says the same: each server's last second in the JSON lines,
  // and Prometheus, read back through its query API.
  type Line = { type: string; server: string; startMs: number; wallets?: { held: number; blocks: number; headers: { ok: number; missing: number }; scripthash: { ok: number } } };
  const sent = fs.readFileSync(lines, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line).filter((l) => l.type === 'interval');
  const testStart = new Date(sent[0].startMs).toISOString();
  for (const s of out.servers) {
    const last = sent.filter((l) => l.server === s.server).at(-1)!;
    expect({ server: s.server, ...last.wallets }).toMatchObject({ server: s.server, held: HELD, blocks: 1, headers: { ok: s.notify.headers.ok, missing: 0 }, scripthash: { ok: s.notify.scripthash.ok } });
    const promql = (q: string) => `${env.prometheus.url}/api/v1/query?query=${encodeURIComponent(q)}`;
    const selector = `server="${s.server}",test_start="${testStart}"`;
    const value = async (q: string) => {
      // Once more on a connection Prometheus dropped (CI, 2026-11-27: "other side closed" on the
      // first query after the run, Prometheus up and logging nothing): the pool's next try opens a
      // new one. An HTTP error or a wrong value is not retried.
      const response = await fetch(promql(q)).catch((err: Error & { cause?: { code?: string } }) => {
        if (err.cause?.code !== 'UND_ERR_SOCKET') throw err;
        return fetch(promql(q));
      });
      const body = (await response.json()) as { data: { result: Array<{ value: [number, string] }> } };
      return body.data.result.length ? Number(body.data.result[0].value[1]) : undefined;
    };
    expect({ server: s.server, held: await value(`max_over_time(electrum_bench_wallets_held{${selector}}[1h])`) }).toEqual({ server: s.server, held: HELD });
    expect({ server: s.server, headers: await value(`max_over_time(electrum_bench_notifications_total{${selector},kind="headers",outcome="ok"}[1h])`) }).toEqual({ server: s.server, headers: s.notify.headers.ok });
  }
  // Released: no server still holds a socket of ours (give their event loops a moment to close).
  const deadline = Date.now() + 10_000;
  let after = new Map(servers.map(([name, e]) => [name, serverSockets(e.port)]));
  while ([...after].some(([n, c]) => c > before.get(n)!) && Date.now() < deadline) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    after = new Map(servers.map(([name, e]) => [name, serverSockets(e.port)]));
  }
  expect(Object.fromEntries(after)).toEqual(Object.fromEntries(before));
  fs.rmSync(tmp, { recursive: true, force: true });
}, 600_000);

test('natural blocks (no way to mine known to the run) are timed from the first held connection that heard them', async () => {
  // `localhost` is not how the lab names its servers, so the run does not know it could mine.
  const port = env.electrum.electrumx.port;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-natural-'));
  const child = spawn(
    TSX,
    [path.join(ROOT, 'src', 'cli', 'load.ts'), '--server', `electrumx@localhost:${port}`, '--workload', 'electrum', '--wallets', env.walletsPath, '--hold', '20', '--wallet-max-txs', '5', '--notify', '--blocks', '1', '--natural-wait', '60s', '--json', '--db', path.join(tmp, 'n.sqlite')],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const waiting = new Promise<void>((resolve) =>
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      // The line that ends the hold ("20 wallets held in 3.1 s"), not a progress line ("20/20 wallets
      // held"), which can come while surplus syncs still run (an electrum sync waits a second in its
      // send buffer): a block mined before the run watches for one would be missed.
      if (/20 wallets held in /.test(stderr)) resolve();
    }),
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await waiting;
  expect(stderr).toContain('natural blocks');
  const { miner, recordChange } = await labMiner();
  await new Promise((r) => setTimeout(r, 500));
  await miner.mineOne();
  recordChange(1, 0);
  expect({ code: await exited, stderr }).toEqual({ code: 0, stderr });
  const out = JSON.parse(stdout) as { servers: Array<{ notify: { blocks: number; mineCallMs: number | null; headers: { expected: number; ok: number; missing: number; p50Ms: number; maxMs: number } } }> };
  const n = out.servers[0].notify;
  expect(n.blocks).toBe(1);
  expect(n.mineCallMs).toBeNull();
  expect(n.headers).toMatchObject({ expected: 20, ok: 20, missing: 0 });
  // From the first connection that heard it: the spread among connections, not a poll interval.
  expect(n.headers.p50Ms).toBeGreaterThanOrEqual(0);
  expect(n.headers.maxMs).toBeLessThan(1000);
  fs.rmSync(tmp, { recursive: true, force: true });
}, 120_000);

test('the lab now says its chain changed since its datasets were written', async () => {
  const s = await labStatus();
  expect(s.changed?.blocks).toBeGreaterThanOrEqual(1);
  expect(s.changed?.payments).toBeGreaterThanOrEqual(1);
});
