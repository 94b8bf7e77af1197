/**
 * The report over wallet runs, from synthetic databases written through the stores the wallet CLIs
 * use (ResultsStore, WalletStore): a bench run (two servers, three wallets, a warm-up pass, failed
 * syncs) and a load run (held wallets, arrivals, notifications with a missing and a duplicate one).
 * Every figure the report shows is computed again here from what was written, with its own
 * nearest-rank percentile, and looked for in the tables and charts. Rendered through writeReport,
 * the entry point of `npm run report`; no lab.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../../src/store/results';
import { computeStatistics } from '../../../src/store/statistics';
import { WalletStore, type NotificationRecord } from '../../../src/store/wallets';
import type { RequestSample } from '../../../src/wallet/session';
import { reportOptions } from '../../../src/report/options';
import { readModels, writeReport } from '../../../src/report/report';
import { CHARTS } from '../../../src/report/charts/definitions';
import { chartSpec } from '../../../src/report/charts/scaling-spec';
import { walletSections } from '../../../src/report/wallet';
import { BusyTime } from '../../../src/report/wallet-mix';
import { UserError } from '../../../src/core/user-error';

const SERVERS = ['alpha', 'beta'] as const;
type Server = (typeof SERVERS)[number];
const WALLETS = [
  { name: 'w-1tx', txs: 1, scripts: 21 },
  { name: 'w-10tx', txs: 10, scripts: 25 },
  { name: 'w-100tx', txs: 100, scripts: 60 },
];
type Wallet = (typeof WALLETS)[number];
const PASSES = 4;
const WARMUP = 1;
const POLLING: Record<Server, { polling: string; pollMs: number }> = {
  alpha: { polling: 'POLL=200 ms (test)', pollMs: 200 },
  beta: { polling: 'every 1 s, fixed (test)', pollMs: 1000 },
};

/** Nearest rank, written out again here: the value of rank ceil(q·n). */
function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
}
const ms3 = (v: number) => v.toFixed(3);
const ns = (ms: number) => BigInt(Math.round(ms * 1e6));

const historyRequests = (w: Wallet) => Math.ceil(w.txs / 10) + 1;

/**
 * One sync's requests: alpha batches its subscriptions, beta sends them one by one, 0.1 ms apart and
 * 0.5 ms each, so they overlap; transactions are all sent at once.
 */
function samples(server: Server, w: Wallet): RequestSample[] {
  const out: RequestSample[] = [{ step: 'handshake', method: 'server.version', items: 1, offsetNs: 0n, latencyNs: ns(1), bytes: 80, outcome: 'ok' }];
  if (server === 'alpha') {
    out.push({ step: 'subscribe', method: 'blockchain.scripthash.subscribe', items: w.scripts, offsetNs: ns(1), latencyNs: ns(2), bytes: 100 * w.scripts, outcome: 'ok' });
  } else {
    for (let i = 0; i < w.scripts; i++) out.push({ step: 'subscribe', method: 'blockchain.scripthash.subscribe', items: 1, offsetNs: ns(1 + i * 0.1), latencyNs: ns(0.5), bytes: 100, outcome: 'ok' });
  }
  for (let i = 0; i < historyRequests(w); i++) out.push({ step: 'history', method: 'blockchain.scripthash.get_history', items: 1, offsetNs: ns(20 + i), latencyNs: ns(1), bytes: 200, outcome: 'ok' });
  for (let i = 0; i < w.txs; i++) out.push({ step: 'transactions', method: 'blockchain.transaction.get', items: 1, offsetNs: ns(200), latencyNs: ns(0.3), bytes: 300, outcome: 'ok' });
  return out;
}

function syncMs(server: Server, w: Wallet, pass: number): number {
  return server === 'alpha' ? 5 + 0.5 * w.txs + pass * 1.3 : 20 + 2 * w.txs + (pass === 1 ? 7 : 0) + pass * 0.25;
}

/** beta times out in history on the largest wallet in one counted pass, and drops a warm-up sync. */
function failure(server: Server, w: Wallet, pass: number): { status: string; step: string; error: string } | null {
  if (server === 'beta' && w.name === 'w-100tx' && pass === 2) return { status: 'timeout', step: 'history', error: 'timed out after 10000 ms' };
  if (server === 'beta' && w.name === 'w-1tx' && pass === 0) return { status: 'disconnect', step: 'subscribe', error: 'closed the connection' };
  return null;
}

interface WrittenBench {
  runId: number;
  okMs: Map<string, number[]>; // server + wallet → counted ok durations
}

function writeWalletBench(db: string): WrittenBench {
  const results = ResultsStore.open(db);
  const store = new WalletStore(results);
  const { runId, serverIds } = store.createRun(
    { kind: 'bench', tool_version: '0.0.0-test', git_commit: null, config: { note: 'synthetic' }, workload: 'electrum', wallets_path: 'datasets/synthetic-wallets.jsonl', wallets_hash: 'a'.repeat(64), passes: PASSES, warmup: WARMUP },
    SERVERS.map((name, i) => ({ name, profile: i === 0 ? 'electrumx' : 'electrs', url: `tcp://127.0.0.1:${50001 + i}`, software: `${name}-server 1.0`, protocol: '1.4', setup: POLLING[name] })),
  );
  const okMs = new Map<string, number[]>();
  for (let pass = 0; pass < PASSES; pass++) {
    for (const w of WALLETS) {
      for (const server of SERVERS) {
        const f = failure(server, w, pass);
        const durationMs = syncMs(server, w, pass);
        store.addSync(runId, {
          serverId: serverIds.get(server)!,
          wallet: w.name,
          pass,
          warmup: pass < WARMUP,
          scripts: w.scripts,
          expectedTxs: w.txs,
          durationNs: ns(durationMs),
          status: f?.status ?? 'ok',
          error: f?.error,
          errorStep: f?.step,
          found: f ? undefined : { txs: w.txs, confirmed: 1000, unconfirmed: 0 },
          samples: f ? samples(server, w).slice(0, 1) : samples(server, w),
        });
        if (!f && pass >= WARMUP) okMs.set(`${server} ${w.name}`, [...(okMs.get(`${server} ${w.name}`) ?? []), durationMs]);
      }
    }
  }
  store.finishRun(runId, 'completed', { rows: [] });
  results.close();
  return { runId, okMs };
}

interface WrittenLoad {
  runId: number;
  fromIntended: Record<Server, number[]>;
  lags: Record<Server, number[]>;
  notified: Record<Server, Record<'headers' | 'scripthash', { ok: number[]; missing: number; duplicate: number; blocks: Set<number> }>>;
}

const ARRIVALS = 20;
const HELD = 3;

function writeWalletLoad(db: string): WrittenLoad {
  const results = ResultsStore.open(db);
  const store = new WalletStore(results);
  const { runId, serverIds } = store.createRun(
    { kind: 'load', tool_version: '0.0.0-test', git_commit: null, config: { workload: 'electrum', hold: HELD, rate: 2, durationMs: 10_000, notify: true, blocks: 2 }, workload: 'electrum', wallets_path: 'datasets/synthetic-wallets.jsonl', wallets_hash: 'a'.repeat(64), passes: null, warmup: null },
    SERVERS.map((name, i) => ({ name, profile: i === 0 ? 'electrumx' : 'electrs', url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null, setup: POLLING[name] })),
  );
  const written: WrittenLoad = { runId, fromIntended: { alpha: [], beta: [] }, lags: { alpha: [], beta: [] }, notified: {} as WrittenLoad['notified'] };
  const w = WALLETS[1];
  for (const server of SERVERS) {
    const serverId = serverIds.get(server)!;
    // The hold: one more sync than held on beta, which failed.
    for (let i = 0; i < HELD; i++) store.addSync(runId, { serverId, wallet: w.name, pass: 0, warmup: false, scripts: w.scripts, expectedTxs: w.txs, durationNs: ns(8 + i), status: 'ok', samples: samples(server, w) });
    if (server === 'beta') store.addSync(runId, { serverId, wallet: w.name, pass: 0, warmup: false, scripts: w.scripts, expectedTxs: w.txs, durationNs: ns(3), status: 'timeout', errorStep: 'subscribe', samples: [] });
    for (let i = 0; i < ARRIVALS; i++) {
      const lagMs = (i % 3) * 0.5 + (server === 'beta' ? 0.25 : 0);
      const durationMs = 10 + ((i * 7) % 13) + (server === 'beta' ? 30 : 0);
      const failed = server === 'beta' && i === 5;
      store.addSync(runId, { serverId, wallet: w.name, pass: 0, warmup: false, scripts: w.scripts, expectedTxs: w.txs, intendedMs: i * 500, lagMs, durationNs: ns(durationMs), status: failed ? 'timeout' : 'ok', errorStep: failed ? 'history' : undefined, samples: samples(server, w) });
      written.lags[server].push(lagMs);
      if (!failed) written.fromIntended[server].push(lagMs + durationMs);
    }
    const tally = { headers: { ok: [] as number[], missing: 0, duplicate: 0, blocks: new Set<number>() }, scripthash: { ok: [] as number[], missing: 0, duplicate: 0, blocks: new Set<number>() } };
    const rows: NotificationRecord[] = [];
    for (const height of [101, 102]) {
      for (let conn = 1; conn <= HELD; conn++) {
        const base = server === 'alpha' ? 40 + 17 * conn + (height - 101) * 90 : 950 + 11 * conn + (height - 101) * 30;
        rows.push({ serverId, blockHeight: height, kind: 'headers', connection: conn, scripthash: null, latencyNs: ns(base), status: 'ok' });
        tally.headers.ok.push(base);
        tally.headers.blocks.add(height);
        if (conn === 1 && server === 'alpha' && height === 101) {
          rows.push({ serverId, blockHeight: height, kind: 'headers', connection: conn, scripthash: null, latencyNs: ns(base + 5), status: 'duplicate' });
          tally.headers.duplicate++;
        }
        if (conn === 3) continue; // subscribed to no paid script
        const missing = server === 'beta' && conn === 2 && height === 102;
        rows.push({ serverId, blockHeight: height, kind: 'scripthash', connection: conn, scripthash: 'ab'.repeat(32), latencyNs: missing ? null : ns(base + 3), status: missing ? 'missing' : 'ok' });
        tally.scripthash.blocks.add(height);
        if (missing) tally.scripthash.missing++;
        else tally.scripthash.ok.push(base + 3);
      }
    }
    store.addNotifications(runId, rows);
    written.notified[server] = tally;
  }
  store.finishRun(runId, 'completed', {
    servers: [
      { server: 'alpha', held: HELD, holdFailed: 0, holdSeconds: 1.25, rssPerHeldKiB: 42.5 },
      { server: 'beta', held: HELD, holdFailed: 1, holdSeconds: 2.5, rssPerHeldKiB: null },
    ],
  });
  results.close();
  return written;
}

/** A completed address bench run (one server unless named, two addresses), as npm run bench writes it. */
function writeAddressBench(db: string, servers: readonly string[] = ['electrumx']): void {
  const store = ResultsStore.open(db);
  const lines = [1, 5].map((n, i) => ({ address: null, scripthash: i.toString(16).padStart(64, '0'), type: 'nonstandard' as const, txCount: n, utxoCount: n, balance: { confirmed: n, unconfirmed: 0 } }));
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
      passes: 1,
      warmup: 0,
      methods: 'balance,history,utxos',
      call_order: 'address',
    },
    servers.map((name, i) => ({ name, profile: 'electrumx', url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null, banner: null, features_json: null })),
    lines,
  );
  store.setRun(runId);
  for (const serverId of serverIds) for (const [addressIdx, l] of lines.entries()) {
    for (const method of ['balance', 'history', 'utxos'] as const) {
      store.add({ serverId, pass: 0, warmup: false, addressIdx, method, atMs: Date.UTC(2026, 10, 24, 10) + addressIdx, latencyNs: BigInt(1_000_000 * (1 + l.txCount)), responseBytes: 100, resultSize: l.txCount, status: 'ok', error: null, tipHeight: 500, mismatch: null });
    }
  }
  store.flush();
  computeStatistics(store, runId);
  store.finishRun(runId, 'completed', {});
  store.close();
}

const chartFiles = (stem: string) => ['png', 'svg', 'vl.json'].map((ext) => `${stem}.${ext}`);
const row = (md: string, start: string) => md.split('\n').filter((l) => l.startsWith(start));
const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), 'utf8');

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-wallet-report-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a database with only wallet runs', () => {
  let db: string;
  let out: string;
  let bench: WrittenBench;
  let load: WrittenLoad;
  let files: string[];
  let md: string;

  beforeAll(async () => {
    db = path.join(tmp, 'wallets.sqlite');
    out = path.join(tmp, 'report-wallets');
    bench = writeWalletBench(db);
    load = writeWalletLoad(db);
    files = await writeReport(reportOptions({ db, out }));
    md = read(out, 'summary.md');
  });

  test('writes each wallet chart as SVG, PNG and spec, the per-wallet CSV, index.html and summary.md', () => {
    const expected = [
      ...chartFiles(`wallet-${bench.runId}-sync-time`),
      ...chartFiles(`wallet-${load.runId}-notifications`),
      ...chartFiles('wallet-request-mix'),
      'wallet-medians.csv',
      'index.html',
      'summary.md',
    ].sort();
    expect([...files].sort()).toEqual(expected);
    expect(fs.readdirSync(out).sort()).toEqual(expected);
    for (const f of expected) expect(fs.statSync(path.join(out, f)).size).toBeGreaterThan(200);
    for (const f of expected.filter((n) => n.endsWith('.png'))) expect(fs.readFileSync(path.join(out, f)).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(md.startsWith('# Electrum server wallet report\n\nFrom `')).toBe(true);
    const html = read(out, 'index.html');
    expect(html).toContain('<h2>Wallet runs</h2>');
    expect(html).not.toMatch(/<script/i);
    expect((html.match(/<figure class="chart"/g) ?? []).length).toBe(3);
    for (const stem of [`wallet-${bench.runId}-sync-time`, `wallet-${load.runId}-notifications`, 'wallet-request-mix']) expect(md).toContain(`](${stem}.png)`);
  });

  test("the time-to-synced chart draws each wallet's median of its counted ok syncs per server, and names every server", () => {
    const svg = read(out, `wallet-${bench.runId}-sync-time.svg`);
    for (const s of SERVERS) expect(svg).toContain(s);
    const spec = JSON.parse(read(out, `wallet-${bench.runId}-sync-time.vl.json`));
    const drawn = (spec.data.values as Array<{ layer: string; server: string; txs: number; ms: number; lo: number; hi: number }>).filter((v) => v.layer === 'wallet');
    expect(drawn).toHaveLength(SERVERS.length * WALLETS.length);
    for (const server of SERVERS) {
      for (const w of WALLETS) {
        const okMs = bench.okMs.get(`${server} ${w.name}`)!;
        const point = drawn.find((v) => v.server === server && v.txs === w.txs)!;
        expect({ server, wallet: w.name, ms: point.ms, lo: point.lo, hi: point.hi }).toEqual({
          server,
          wallet: w.name,
          ms: expect.closeTo(nearestRank(okMs, 0.5), 9),
          lo: expect.closeTo(Math.min(...okMs), 9),
          hi: expect.closeTo(Math.max(...okMs), 9),
        });
      }
    }
    // beta's 100-tx wallet failed in one of three counted passes: two ok syncs, so the lower middle one
    expect(bench.okMs.get('beta w-100tx')).toHaveLength(PASSES - WARMUP - 1);
  });

  test('failed syncs are drawn as crosses, counted in the lane and listed with their step, warm-up apart', () => {
    const spec = JSON.parse(read(out, `wallet-${bench.runId}-sync-time.vl.json`));
    const crosses = (spec.data.values as Array<{ layer: string; server: string; txs: number }>).filter((v) => v.layer === 'failed');
    expect(crosses.map((c) => [c.server, c.txs])).toEqual([['beta', 100]]);
    const svg = read(out, `wallet-${bench.runId}-sync-time.svg`);
    expect(svg).toContain('failed syncs (red crosses) — beta: 1 timeout in history (and 1 in warm-up passes)');
    const failedRows = row(md, `| ${bench.runId} | electrum | beta |`).filter((l) => /^\| \d+ \| electrum \| beta \| [a-z]/.test(l)); // not the request-mix row
    expect(failedRows).toEqual([
      `| ${bench.runId} | electrum | beta | disconnect | subscribe | 0 | 1 | 1 (1 txs) | closed the connection |`,
      `| ${bench.runId} | electrum | beta | timeout | history | 1 | 0 | 1 (100 txs) | timed out after 10000 ms |`,
    ]);
    expect(row(md, `| ${load.runId} | electrum | beta | timeout |`)).toEqual([`| ${load.runId} | electrum | beta | timeout | history | 1 | 0 | 1 (10 txs) | – |`, `| ${load.runId} | electrum | beta | timeout | subscribe | 1 | 0 | 1 (10 txs) | – |`]);
  });

  test('the time-to-synced table: counted syncs, failures and the median of wallet medians', () => {
    for (const server of SERVERS) {
      const medians = WALLETS.map((w) => nearestRank(bench.okMs.get(`${server} ${w.name}`)!, 0.5));
      const counted = WALLETS.length * (PASSES - WARMUP);
      const failed = server === 'beta' ? 1 : 0;
      const warmupFailed = server === 'beta' ? 1 : 0;
      const largest = nearestRank(bench.okMs.get(`${server} w-100tx`)!, 0.5);
      const [line] = row(md, `| ${server} | ${server}-server 1.0 |`);
      expect(line).toContain(`| ${WALLETS.length} | ${counted} | ${counted - failed} | ${failed} | ${warmupFailed} | 0 | ${ms3(nearestRank(medians, 0.5))} | ${ms3(largest)} |`);
    }
    expect(md).toContain('| server | software | wallets | syncs | ok | failed | failed in warm-up | mismatched | median of wallet medians ms | w-100tx (100 txs) ms | slope ms/100 txs |');
  });

  test('the notification table: expected, missing, duplicate and percentiles per server and kind, beside the polling setup', () => {
    for (const server of SERVERS) {
      for (const kind of ['headers', 'scripthash'] as const) {
        const t = load.notified[server][kind];
        const expected = t.ok.length + t.missing;
        const pcts = [0.5, 0.9, 0.99].map((q) => ms3(nearestRank(t.ok, q)));
        expect(row(md, `| ${server} | ${POLLING[server].polling} | ${kind} |`)).toEqual([
          `| ${server} | ${POLLING[server].polling} | ${kind} | ${t.blocks.size} | ${expected} | ${t.ok.length} | ${t.missing} | ${t.duplicate} | ${pcts.join(' | ')} | ${ms3(Math.max(...t.ok))} |`,
        ]);
      }
    }
    // The cases the table must not hide: one duplicate on alpha, one missing on beta.
    expect(load.notified.alpha.headers.duplicate).toBe(1);
    expect(load.notified.beta.scripthash.missing).toBe(1);
    const svg = read(out, `wallet-${load.runId}-notifications.svg`);
    for (const s of SERVERS) expect(svg).toContain(s);
    expect(svg).toContain('beta: headers 6/6, scripthash 3/4 heard; polls its node every 1000 ms');
    const spec = JSON.parse(read(out, `wallet-${load.runId}-notifications.vl.json`));
    const betaScripts = (spec.data.values as Array<{ layer: string; server: string; kind: string; pct: number }>).filter((v) => v.layer === 'cdf' && v.server === 'beta' && v.kind === 'scripthash');
    expect(Math.max(...betaScripts.map((v) => v.pct))).toBe(75); // 3 of 4 expected: the curve stops short of 100 %
  });

  test('the load table: held wallets and RSS per held wallet from the summary, arrivals timed from when they were due', () => {
    for (const server of SERVERS) {
      const fi = load.fromIntended[server];
      const held = server === 'alpha' ? `| ${HELD} | 1.3 s | 42.5 KiB | ${HELD} / 0 |` : `| ${HELD} | 2.5 s | – | ${HELD} / 1 |`;
      const failed = server === 'beta' ? 1 : 0;
      const arrivals = `| ${ARRIVALS} | ${ARRIVALS - failed} | ${failed} | ${[0.5, 0.9, 0.99].map((q) => ms3(nearestRank(fi, q))).join(' | ')} | ${ms3(Math.max(...fi))} | ${ms3(nearestRank(load.lags[server], 0.99))} |`;
      expect(row(md, `| ${server} | ${HELD} |`)).toEqual([`| ${server} ${held} ${arrivals.slice(2)}`]);
    }
  });

  test('the request mix: requests, calls and bytes of one sync of each wallet per server; overlapping requests timed once', () => {
    const totals = (server: Server, wallets: Wallet[]) => {
      let requests = 0;
      let calls = 0;
      let bytes = 0;
      for (const w of wallets) {
        const s = samples(server, w);
        requests += s.length;
        calls += s.reduce((n, x) => n + x.items, 0);
        bytes += s.reduce((n, x) => n + x.bytes, 0);
      }
      return `| ${requests} | ${calls} | ${(bytes / 1024).toFixed(1)} |`;
    };
    for (const server of SERVERS) {
      const [line] = row(md, `| ${bench.runId} | electrum | ${server} |`).filter((l) => !/\| (timeout|disconnect) \|/.test(l));
      expect(line).toContain(`| ${server} | ${WALLETS.length} ${totals(server, WALLETS)}`);
    }
    const subscribe = WALLETS.reduce((n, w) => n + w.scripts, 0);
    expect(row(md, `| ${bench.runId} | electrum | alpha | ${WALLETS.length} |`)[0]).toContain(`| ${WALLETS.length} (${subscribe}) |`); // batched: 3 requests, every script
    expect(row(md, `| ${bench.runId} | electrum | beta | ${WALLETS.length} |`)[0]).toContain(`| ${subscribe} |`);
    const spec = JSON.parse(read(out, 'wallet-request-mix.vl.json'));
    const betaSubscribe = (spec.data.values as Array<{ run: number; server: string; step: string; busyMs: number }>).find((v) => v.run === bench.runId && v.server === 'beta' && v.step === 'subscribe')!;
    // 0.5 ms requests started 0.1 ms apart: the step is busy from the first start to the last end.
    expect(betaSubscribe.busyMs).toBeCloseTo(WALLETS.reduce((n, w) => n + (w.scripts - 1) * 0.1 + 0.5, 0), 6);
  });

  test('the CSV has every wallet of the bench run per server, failed counts included', () => {
    const lines = read(out, 'wallet-medians.csv').trim().split('\n');
    expect(lines[0]).toBe('run,workload,server,wallet,scripts,expected_txs,median_ms,min_ms,max_ms,n_ok,n_failed');
    expect(lines).toHaveLength(1 + SERVERS.length * WALLETS.length);
    const beta100 = nearestRank(bench.okMs.get('beta w-100tx')!, 0.5).toFixed(6);
    expect(lines).toContain(`${bench.runId},electrum,beta,w-100tx,60,100,${beta100},${beta100},${Math.max(...bench.okMs.get('beta w-100tx')!).toFixed(6)},2,1`);
  });
});

describe('beside other runs', () => {
  test('a database with no wallet run has no wallet section; adding wallet runs adds it, and naming --run alone leaves it out', async () => {
    const db = path.join(tmp, 'address.sqlite');
    writeAddressBench(db);
    const plain = path.join(tmp, 'report-address');
    const files = await writeReport(reportOptions({ db, out: plain }));
    expect(files.filter((f) => f.startsWith('wallet'))).toEqual([]);
    // (The temporary directory's own name has "wallet" in it.)
    for (const f of ['summary.md', 'index.html']) expect(read(plain, f)).not.toMatch(/Wallet runs|wallet-(\d|request)|wallet report|Time to synced/);

    const both = path.join(tmp, 'address-and-wallets.sqlite');
    fs.copyFileSync(db, both);
    const { runId } = writeWalletBench(both);
    const all = await writeReport(reportOptions({ db: both, out: path.join(tmp, 'report-both') }));
    expect(all).toEqual(expect.arrayContaining(['medians.csv', 'wallet-medians.csv', ...chartFiles(`wallet-${runId}-sync-time`)]));
    const md = read(path.join(tmp, 'report-both'), 'summary.md');
    expect(md.startsWith('# Electrum server latency report')).toBe(true);
    expect(md.indexOf('## Charts')).toBeLessThan(md.indexOf('## Wallet runs'));

    const benchOnly = await writeReport(reportOptions({ db: both, run: '1', out: path.join(tmp, 'report-run') }));
    expect(benchOnly.filter((f) => f.startsWith('wallet'))).toEqual([]);
    const walletOnly = await writeReport(reportOptions({ db: both, walletRun: String(runId), out: path.join(tmp, 'report-wallet-run') }));
    expect(walletOnly.filter((f) => !f.startsWith('wallet')).sort()).toEqual(['index.html', 'summary.md']);
    expect(() => readModels(reportOptions({ db: both, walletRun: '9', out: tmp }))).toThrow(new UserError(`--wallet-run: no wallet run 9 in ${both} (wallet runs: ${runId})`));
  });

  test('a server keeps one colour in every chart of the report, address and wallet charts alike', () => {
    const db = path.join(tmp, 'colours.sqlite');
    // The address run lists the servers the other way round from the wallet run: a colour taken
    // from a server's place among each chart's own servers would differ between them.
    writeAddressBench(db, ['beta', 'alpha']);
    writeWalletLoad(db);
    const opts = reportOptions({ db, out: tmp });
    const models = readModels(opts);
    const specs: Array<{ id: string; spec: unknown }> = [
      ...CHARTS.map((def) => ({ id: def.id, spec: chartSpec(models.bench!, def, opts) })),
      ...walletSections(models.wallet!).flatMap((plan) => plan.charts.map((f) => ({ id: f.id, spec: f.spec() }))),
    ];
    // Every server colour scale in every spec: { field: 'server', scale: { domain, range } }.
    const seen = new Map<string, Map<string, string[]>>(); // server → colour → charts
    const walk = (node: unknown, id: string): void => {
      if (Array.isArray(node)) return node.forEach((n) => walk(n, id));
      if (typeof node !== 'object' || node === null) return;
      const o = node as Record<string, unknown>;
      const scale = o.scale as { domain?: unknown[]; range?: unknown[] } | undefined;
      if (o.field === 'server' && Array.isArray(scale?.domain) && Array.isArray(scale?.range) && typeof scale.range[0] === 'string') {
        scale.domain.forEach((server, i) => {
          const colours = seen.get(String(server)) ?? new Map<string, string[]>();
          seen.set(String(server), colours);
          colours.set(String(scale.range![i]), [...(colours.get(String(scale.range![i])) ?? []), id]);
        });
      }
      for (const v of Object.values(o)) walk(v, id);
    };
    for (const { id, spec } of specs) walk(spec, id);
    expect([...seen.keys()].sort()).toEqual(['alpha', 'beta']);
    for (const [server, colours] of seen) {
      // Named in address charts and wallet charts both, with one colour.
      const charts = [...colours.values()].flat();
      expect({ server, address: charts.some((c) => !c.startsWith('wallet')), wallet: charts.some((c) => c.startsWith('wallet')) }).toEqual({ server, address: true, wallet: true });
      expect({ server, colours: [...colours.keys()] }).toEqual({ server, colours: [expect.any(String)] });
    }
    expect(seen.get('alpha')!.keys().next().value).not.toBe(seen.get('beta')!.keys().next().value);
  });

  test('only finished wallet runs are picked by default: the latest of each kind and workload', async () => {
    const db = path.join(tmp, 'several.sqlite');
    const first = writeWalletBench(db);
    const second = writeWalletBench(db);
    const results = ResultsStore.open(db);
    const store = new WalletStore(results);
    const running = store.createRun({ kind: 'bench', tool_version: '0', git_commit: null, config: {}, workload: 'electrum', wallets_path: 'x', wallets_hash: 'b'.repeat(64), passes: 1, warmup: 0 }, []).runId;
    results.close();
    const models = readModels(reportOptions({ db, out: tmp }));
    expect(second.runId).toBeGreaterThan(first.runId);
    expect(running).toBeGreaterThan(second.runId); // the latest, but still running
    expect(models.wallet?.runs.map((r) => r.run.id)).toEqual([second.runId]);
  });
});

test('busy time counts overlapping requests once and gaps not at all', () => {
  const busy = new BusyTime();
  for (const [start, end] of [[0, 10], [5, 12], [12, 13], [20, 25], [21, 22]]) busy.add(start, end);
  expect(busy.ns).toBe(13 + 5);
  expect(new BusyTime().ns).toBe(0);
});
