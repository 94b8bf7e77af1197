/**
 * The REST transport's connections lent to the bench (`use`), against a local HTTP server in
 * Esplora's shapes (the real Esplora is the lab tier's): through an outage, calls fail as
 * disconnects at the backoff's pace (never a busy loop), the outage is recorded, and calls
 * resume once the server is back; a wait for a busy connection ends at the call timeout; a
 * connection whose call timed out is replaced.
 */
import http from 'node:http';
import net from 'node:net';
import { RestConnectionSet } from '../../../src/transports/esplora-rest-connections';
import { outcome } from '../../support/outcome';
import { METHOD_RPC } from '../../../src/core/methods';
import { until } from '../../support/until';
import type { PendingCall } from '../../../src/electrum/client';
import { heldTimers } from '../../support/held-timers';

const SH = '0f'.repeat(31) + 'a1';
const BALANCE = '{"chain_stats":{"funded_txo_sum":5,"spent_txo_sum":0},"mempool_stats":{"funded_txo_sum":0,"spent_txo_sum":0}}';

let server: http.Server | undefined;
let slowMs = 0;
/** Answers the server holds back (slowMs): cleared when it stops, so none outlives a test. */
const held = heldTimers();

async function serve(port = 0): Promise<number> {
  const s = http.createServer((req, res) => {
    const body = req.url === '/blocks/tip/height' ? '7' : BALANCE;
    held.later(() => {
      res.writeHead(200, { 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, req.url === '/blocks/tip/height' ? 0 : slowMs);
  });
  await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
  server = s;
  return (s.address() as net.AddressInfo).port;
}

async function stop(): Promise<void> {
  const s = server;
  server = undefined;
  held.clear();
  if (!s) return;
  s.closeAllConnections();
  await new Promise((r) => s.close(r));
}

afterEach(async () => {
  slowMs = 0;
  await stop();
});


test('through an outage, four lent connections fail as disconnects at the backoff pace, and calls resume when the server is back', async () => {
  const port = await serve();
  const set = new RestConnectionSet({ host: '127.0.0.1', port, tls: false, timeoutMs: 2000 }, 4, 1);
  expect((await set.start()).features).toEqual({ tipAtStart: 7 });
  await expect(set.use((c) => c.call(METHOD_RPC.balance, [SH]))).resolves.toMatchObject({ result: { confirmed: 5 } });
  await stop();

  const outcomes: string[] = [];
  const stopAt = Date.now() + 1200;
  const worker = async () => {
    while (Date.now() < stopAt) outcomes.push(await outcome(set.use((c) => c.call(METHOD_RPC.balance, [SH]))));
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  expect(outcomes.length).toBeGreaterThan(4);
  expect(new Set(outcomes)).toEqual(new Set(['disconnect']));
  // Each connection waits 100, 200, 400, 800 ms after its failures; a loop that did not wait would make thousands.
  expect(outcomes.length).toBeLessThan(100);
  expect(set.down).toBe(true);

  await serve(port);
  const t0 = Date.now();
  await expect(set.use((c) => c.call(METHOD_RPC.balance, [SH]))).resolves.toMatchObject({ result: { confirmed: 5 } });
  expect(Date.now() - t0).toBeLessThan(2500); // the longest backoff is 1 s
  expect(set.down).toBe(false);
  expect(set.stats.outages).toHaveLength(1);
  set.close();
});

test('a caller waiting for a busy connection gives up at the call timeout', async () => {
  slowMs = 800;
  const port = await serve();
  const set = new RestConnectionSet({ host: '127.0.0.1', port, tls: false, timeoutMs: 300 }, 1, 1);
  await set.start();
  const busy = outcome(set.use((c) => c.call(METHOD_RPC.balance, [SH], 2000)));
  const t0 = Date.now();
  expect(await outcome(set.use((c) => c.call(METHOD_RPC.balance, [SH])))).toBe('timeout');
  expect(Date.now() - t0).toBeLessThan(700);
  expect(await busy).toBe('ok');
  set.close();
});

test('a connection whose call timed out is not lent again: the next call goes on a new socket, and the late answer is counted', async () => {
  slowMs = 600;
  const port = await serve();
  const set = new RestConnectionSet({ host: '127.0.0.1', port, tls: false, timeoutMs: 200 }, 1, 1);
  await set.start();
  expect(await outcome(set.use((c) => c.call(METHOD_RPC.balance, [SH])))).toBe('timeout');
  slowMs = 0;
  const t0 = Date.now();
  // Behind the abandoned request on the old socket, this would wait for its answer (~400 ms more) and time out too.
  expect(await outcome(set.use((c) => c.call(METHOD_RPC.balance, [SH])))).toBe('ok');
  expect(Date.now() - t0).toBeLessThan(350); // not ~400 ms behind the old request
  await until('the late answer', () => set.stats.lateReplies > 0, 2000);
  expect(set.stats.lateReplies).toBe(1);
  set.close();
  expect(set.stats.lateReplies).toBe(1);
});

test('close() fails every caller still waiting', async () => {
  slowMs = 2000;
  const port = await serve();
  const set = new RestConnectionSet({ host: '127.0.0.1', port, tls: false, timeoutMs: 5000 }, 1, 1);
  await set.start();
  const busy = outcome(set.use((c) => c.call(METHOD_RPC.balance, [SH])));
  const waiting = outcome(set.use((c) => c.call(METHOD_RPC.balance, [SH])));
  await new Promise((r) => setTimeout(r, 50));
  const t0 = Date.now();
  set.close();
  expect(await Promise.all([busy, waiting])).toEqual(['disconnect', 'disconnect']);
  expect(Date.now() - t0).toBeLessThan(500);
});

test("a load's request queued in undici behind another ends after both answers: its queue is in its latency from the send", async () => {
  slowMs = 300;
  const port = await serve();
  const set = new RestConnectionSet({ host: '127.0.0.1', port, tls: false, timeoutMs: 5000 }, 1, 1);
  await set.open();
  const caller = set.slots[0].client!;
  const ends: bigint[] = [];
  const call = (): PendingCall => ({
    rpc: METHOD_RPC.balance,
    deadline: Date.now() + 5000,
    timeoutMs: 5000,
    replied: (_result, endNs) => ends.push(endNs),
    failed: (err) => {
      throw err;
    },
  });
  caller.queue(METHOD_RPC.balance, SH, call(), 5000);
  caller.queue(METHOD_RPC.balance, SH, call(), 5000);
  const at = caller.flush()!;
  await until('both answers', () => ends.length === 2, 3000);
  // The server answers one request at a time on the connection, 300 ms each: the second went out after the first's answer.
  const latenciesMs = ends.map((end) => Number(end - at) / 1e6).sort((a, b) => a - b);
  expect(latenciesMs[0]).toBeGreaterThanOrEqual(299);
  expect(latenciesMs[1]).toBeGreaterThanOrEqual(599);
  set.close();
});
