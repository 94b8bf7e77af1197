/**
 * The Esplora REST client's fault rules, against a deliberately misbehaving local HTTP server (the
 * real Esplora is the lab tier's): limit errors, server errors, bodies that are not what Esplora
 * sends, bodies past the size cap, timeouts with late answers counted, and a refused connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import net from 'node:net';
import diagnostics from 'node:diagnostics_channel';
import { EsploraRestClient, restScriptHash } from '../../../src/esplora/rest-client';
import { DEFAULT_MAX_LINE_BYTES } from '../../../src/electrum/client';
import { toElectrumError } from '../../../src/electrum/errors';
import { classify, PROFILES } from '../../../src/servers/profiles';
import { METHOD_RPC } from '../../../src/core/methods';
import { until } from '../../support/until';
import { writeSyntheticDataset } from '../../support/synthetic-lines';
import { benchInItsOwnProcess, outcomesIn } from '../../support/bench-process';

const SH = '0f'.repeat(31) + 'a1';
/** How the server answers the next requests. */
let next: 'ok' | 'limit' | 'busy' | 'garbage' | 'slow' | 'paged' | 'huge' | 'declared' | 'mempool-fork' = 'ok';
/** In 'paged' mode: how long each history page takes, and how many pages of 25 come before the short last one. */
const PAGE_DELAY_MS = 40;
const FULL_PAGES = 2;
/**
 * In 'huge' mode every answer but the tip's is a body this long, sent as the client takes it (so
 * this process never holds it); 'declared' says its length up front. How many of them the client
 * dropped before their end.
 */
const HUGE_BODY_BYTES = 100_000_000;
const FILLER = Buffer.alloc(1024 * 1024, 'x');
let hugeBodiesCut = 0;
let server: http.Server;
let port: number;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const reply = (status: number, body: string) => {
      res.writeHead(status, { 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const mode = next;
    // Every mode answers the tip (what the bench asks first).
    if (req.url === '/blocks/tip/height') reply(200, '100');
    else if (mode === 'huge' || mode === 'declared') {
      res.writeHead(200, mode === 'declared' ? { 'content-length': HUGE_BODY_BYTES } : {});
      res.on('close', () => (hugeBodiesCut += res.writableFinished ? 0 : 1));
      let left = HUGE_BODY_BYTES / FILLER.length;
      const more = () => {
        while (left > 0 && !res.destroyed) {
          left--;
          if (!res.write(FILLER)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end();
      };
      more();
    } else if (mode === 'limit') reply(400, 'Too many history entries');
    else if (mode === 'busy') reply(503, 'upstream unavailable');
    else if (mode === 'garbage') reply(200, '<html>not json</html>');
    else if (mode === 'paged') {
      // Pages of 25 confirmed transactions, each named by its page: the client asks on from the last.
      const page = /\/txs\/chain\/p(\d)/.exec(req.url ?? '')?.[1];
      const index = page === undefined ? 0 : Number(page) + 1;
      const count = index < FULL_PAGES ? 25 : 3;
      const txs = Array.from({ length: count }, (_, i) => ({ txid: `p${index}x${i}x`.padEnd(64, '0'), status: { confirmed: true, block_height: 100 - index } }));
      setTimeout(() => reply(200, JSON.stringify(txs)), PAGE_DELAY_MS);
    } else if (mode === 'mempool-fork') reply(200, JSON.stringify(mempoolForkPage(req.url ?? '')));
    else if (mode === 'slow') setTimeout(() => reply(200, '{"chain_stats":{"funded_txo_sum":5,"spent_txo_sum":0},"mempool_stats":{"funded_txo_sum":0,"spent_txo_sum":0}}'), 300);
    else reply(200, '[]');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

/**
 * A history as mempool's fork pages it (src/rest.rs, 80758ea): its scan is newest first, blocks
 * holding up to five of the address's transactions; `/txs` is the mempool's transactions (listed
 * twice, as that version does) and then confirmed ones up to 50 entries in all; `/txs/chain/:txid`
 * the 25 after that one in the scan. Every page comes in a shuffled order, as rayon's par_bridge
 * gathers it.
 */
const FORK_CONFIRMED = 137;
const FORK_MEMPOOL = ['m1'.padEnd(64, '0'), 'm2'.padEnd(64, '0')];
/** The mempool's transactions the fork lists: FORK_MEMPOOL, or a busier one's. */
let forkMempool = FORK_MEMPOOL;
const forkScan = Array.from({ length: FORK_CONFIRMED }, (_, i) => ({ txid: `c${i}`.padEnd(64, 'f'), height: 500 - Math.floor(i / 5) }));
const forkRequests: string[] = [];
function mempoolForkPage(url: string): unknown[] {
  forkRequests.push(url);
  const tx = ({ txid, height }: { txid: string; height: number }) => ({ txid, status: { confirmed: true, block_height: height } });
  const mempool = forkMempool.map((txid) => ({ txid, status: { confirmed: false } }));
  const after = /\/txs\/chain\/([0-9a-z]+)/.exec(url)?.[1];
  const page = /\/txs\/chain$/.test(url)
    ? forkScan.slice(0, 25).map(tx)
    : after === undefined
    ? [...mempool, ...mempool, ...forkScan.slice(0, Math.max(0, 50 - 2 * mempool.length)).map(tx)]
    : forkScan.slice(forkScan.findIndex((t) => t.txid === after) + 1).slice(0, 25).map(tx);
  // A fixed shuffle: every third entry to the front.
  return [...page.filter((_, i) => i % 3 === 2), ...page.filter((_, i) => i % 3 !== 2)];
}


const client = (timeoutMs = 2000) => new EsploraRestClient({ host: '127.0.0.1', port, tls: false, timeoutMs, maxSockets: 2 });
const failure = async (p: Promise<unknown>) => classify(PROFILES['esplora-rest'], toElectrumError(await p.then(() => null, (e) => e)));

test('REST asks by the scripthash in plain byte order (the Electrum form reversed)', async () => {
  next = 'ok';
  const c = client();
  await c.call(METHOD_RPC.utxos, [SH]);
  c.close();
  expect(seen.pop()).toBe(`/scripthash/${restScriptHash(SH)}/utxo`);
  expect(restScriptHash(SH)).toBe('a1' + '0f'.repeat(31));
});

test('HTTP 400 "Too many history entries" is history-too-large; 5xx server-error; a non-JSON body protocol', async () => {
  const c = client();
  next = 'limit';
  expect((await failure(c.call(METHOD_RPC.history, [SH]))).category).toBe('history-too-large');
  next = 'busy';
  expect((await failure(c.call(METHOD_RPC.balance, [SH]))).category).toBe('server-error');
  next = 'garbage';
  expect((await failure(c.call(METHOD_RPC.balance, [SH]))).category).toBe('protocol');
  next = 'ok'; // '[]' is no balance object
  expect((await failure(c.call(METHOD_RPC.balance, [SH]))).category).toBe('protocol');
  c.close();
});

test("a paged history's latency is its pages' round trips summed: every page's server time, never the call's whole time", async () => {
  next = 'paged';
  const c = client();
  const t0 = process.hrtime.bigint();
  const outcome = await c.call(METHOD_RPC.history, [SH]);
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  c.close();
  expect(outcome.requests).toBe(FULL_PAGES + 1);
  expect((outcome.result as unknown[]).length).toBe(25 * FULL_PAGES + 3);
  const latencyMs = Number(outcome.latencyNs) / 1e6;
  // Less 1 ms a page: a timer fires on the loop's cached time, up to 1 ms before the clock says.
  expect(latencyMs).toBeGreaterThanOrEqual((PAGE_DELAY_MS - 1) * (FULL_PAGES + 1));
  expect(latencyMs).toBeLessThanOrEqual(wallMs);
});

test("a history paged as mempool's fork pages it, in shuffled pages, comes whole: every confirmed transaction once, oldest first, then the mempool's", async () => {
  next = 'mempool-fork';
  forkRequests.length = 0;
  const c = new EsploraRestClient({ host: '127.0.0.1', port, tls: false, timeoutMs: 2000, maxSockets: 2, historyPaging: PROFILES['mempool-electrs-rest'].restHistory });
  const outcome = await c.call(METHOD_RPC.history, [SH]);
  c.close();
  const got = outcome.result as Array<{ tx_hash: string; height: number }>;
  expect(got.length).toBe(FORK_CONFIRMED + FORK_MEMPOOL.length);
  expect(new Set(got.map((e) => e.tx_hash)).size).toBe(got.length);
  const confirmed = got.slice(0, FORK_CONFIRMED);
  expect(confirmed.map((e) => e.tx_hash).sort()).toEqual(forkScan.map((e) => e.txid).sort());
  expect(confirmed.map((e) => e.height)).toEqual(forkScan.map((e) => e.height).reverse());
  expect(got.slice(FORK_CONFIRMED)).toEqual(FORK_MEMPOOL.map((tx_hash) => ({ tx_hash, height: 0 })));
  // Each page took at least one new transaction; the walk stopped at the first page not full.
  expect(outcome.requests).toBe(forkRequests.length);
  expect(outcome.requests).toBeLessThanOrEqual(1 + Math.ceil((FORK_CONFIRMED - 46) / 21) + 1);
});

test("mempool's fork with 25 or more of the address's transactions in its mempool: its first page has no confirmed one, and the confirmed history still comes whole", async () => {
  next = 'mempool-fork';
  forkRequests.length = 0;
  forkMempool = Array.from({ length: 30 }, (_, i) => `m${String(i).padStart(2, '0')}`.padEnd(64, '0'));
  try {
    const c = new EsploraRestClient({ host: '127.0.0.1', port, tls: false, timeoutMs: 2000, maxSockets: 2, historyPaging: PROFILES['mempool-electrs-rest'].restHistory });
    const outcome = await c.call(METHOD_RPC.history, [SH]);
    c.close();
    const got = outcome.result as Array<{ tx_hash: string; height: number }>;
    expect(got.slice(0, FORK_CONFIRMED).map((e) => e.tx_hash).sort()).toEqual(forkScan.map((e) => e.txid).sort());
    expect(got.length).toBe(FORK_CONFIRMED + forkMempool.length);
    expect(got.slice(FORK_CONFIRMED).map((e) => e.tx_hash).sort()).toEqual([...forkMempool].sort());
    expect(forkRequests[1]).toMatch(/\/txs\/chain$/);
  } finally {
    forkMempool = FORK_MEMPOOL;
  }
});

test('a body past the cap is a protocol error as its bytes arrive (or once its Content-Length says it will be), and its connection is dropped unread', async () => {
  const c = new EsploraRestClient({ host: '127.0.0.1', port, tls: false, timeoutMs: 10_000, maxSockets: 1, maxBodyBytes: 1 << 20 });
  const cutBefore = hugeBodiesCut;
  try {
    for (const mode of ['huge', 'declared'] as const) {
      next = mode;
      const err = await failure(c.call(METHOD_RPC.utxos, [SH]));
      expect(err.category).toBe('protocol');
      expect(err.message).toMatch(/response body exceeds 1048576 bytes/);
    }
    await until('both bodies cut short', () => hugeBodiesCut === cutBefore + 2, 2000);
    next = 'ok';
    expect((await c.call(METHOD_RPC.utxos, [SH])).result).toEqual([]);
  } finally {
    next = 'ok';
    c.close();
  }
});

test("a server answering every request with a 100 MB body adds less than two and a half caps to the bench's peak RSS, each call a protocol error", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-rest-cap-'));
  try {
    const dataset = path.join(tmp, 'd.jsonl');
    writeSyntheticDataset(dataset, 1, 'rest-cap');
    const bench = (db: string) => benchInItsOwnProcess(['--no-progress', '--server', `r=esplora-rest@http://127.0.0.1:${port}`, '--dataset', dataset, '--passes', '2', '--db', path.join(tmp, db)]);
    // The same bench against small answers: what the REST path costs anyway (its undici alone is tens of MB).
    next = 'ok';
    const small = await bench('small.sqlite');
    next = 'huge';
    const huge = await bench('huge.sqlite');
    expect([small.code, huge.code]).toEqual([0, 0]);
    const samples = outcomesIn(path.join(tmp, 'huge.sqlite'));
    expect(samples).toHaveLength(2 * 3);
    for (const s of samples) {
      expect(s.status).toBe('protocol');
      expect(s.error).toContain(`response body exceeds ${DEFAULT_MAX_LINE_BYTES} bytes`);
    }
    // The cap held, and what undici's reads of it leave until a collection (about as much again),
    // never the whole body: without the cap, five caps' worth.
    expect(huge.maxRssBytes - small.maxRssBytes).toBeLessThanOrEqual(2.5 * DEFAULT_MAX_LINE_BYTES);
  } finally {
    next = 'ok';
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('a call past its timeout fails with timeout, and the answer that comes later is counted late', async () => {
  next = 'slow';
  const c = client(100);
  expect((await failure(c.call(METHOD_RPC.balance, [SH]))).category).toBe('timeout');
  await until('the late answer', () => c.lateReplies > 0, 2000);
  expect(c.lateReplies).toBe(1);
  c.close();
});

/** A utxo call on a loop-measuring client, with `ms` of our own busy work in each publication of undici's diagnostics `channel`. */
async function callWithOwnWorkIn(channel: string, ms: number) {
  next = 'ok';
  const c = new EsploraRestClient({ host: '127.0.0.1', port, tls: false, timeoutMs: 2000, maxSockets: 1, measureLoop: true });
  const ownWork = () => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  diagnostics.subscribe(channel, ownWork);
  try {
    const outcome = await c.call(METHOD_RPC.utxos, [SH]);
    return { latencyMs: Number(outcome.latencyNs) / 1e6, busyMs: outcome.loopBusyMs };
  } finally {
    diagnostics.unsubscribe(channel, ownWork);
    c.close();
  }
}

const OWN_WORK_MS = 60;

test("a page's round trip ends at its last byte's arrival: undici's reading of it is in neither its latency nor our loop's busy time", async () => {
  // Inside undici's parse of the reply, after every byte of it has arrived.
  const { latencyMs, busyMs } = await callWithOwnWorkIn('undici:request:headers', OWN_WORK_MS);
  expect(latencyMs).toBeLessThan(OWN_WORK_MS / 2);
  expect(busyMs).toBeLessThan(OWN_WORK_MS / 2);
});

test("a page's loop-busy time starts after undici has written the request, as an Electrum call's starts after its write; its latency still holds the write", async () => {
  // In undici's writing of the request, before any reply can come.
  const { latencyMs, busyMs } = await callWithOwnWorkIn('undici:client:sendHeaders', OWN_WORK_MS);
  expect(latencyMs).toBeGreaterThanOrEqual(OWN_WORK_MS);
  expect(busyMs).toBeLessThan(OWN_WORK_MS / 2);
});

test('a refused connection is a disconnect', async () => {
  const dead = await new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const c = new EsploraRestClient({ host: '127.0.0.1', port: dead, tls: false, timeoutMs: 1000, maxSockets: 1 });
  expect((await failure(c.call(METHOD_RPC.utxos, [SH]))).category).toBe('disconnect');
  c.close();
});

test('a request queued behind another on the one connection is timed from its own write, its queueing carried beside', async () => {
  next = 'slow';
  const c = new EsploraRestClient({ host: '127.0.0.1', port, tls: false, timeoutMs: 5000, maxSockets: 1 });
  const [first, second] = await Promise.all([c.call(METHOD_RPC.balance, [SH]), c.call(METHOD_RPC.balance, [SH])]);
  c.close();
  // Each answer takes the server 300 ms; the second waited the first's whole answer before it went out.
  for (const o of [first, second]) expect(Number(o.latencyNs) / 1e6).toBeGreaterThanOrEqual(299);
  expect(Number(second.latencyNs) / 1e6).toBeLessThan(450);
  // What it waited in undici's queue is carried beside the round trip, for a load's latency from the intended send.
  expect(Number(second.queuedNs + second.latencyNs) / 1e6).toBeGreaterThanOrEqual(599);
  expect(Number(first.queuedNs) / 1e6).toBeLessThan(150);
});
