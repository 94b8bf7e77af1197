/**
 * The pool through a server outage: one reconnect loop per server (not one per waiting task), errors
 * recorded promptly while the server is down, a task never failed by news older than its wait, an
 * acquire timeout never above the call timeout, and close() cutting short a pending connect.
 */
import net from 'node:net';
import { ConnectionSet } from '../../../src/transports/electrum-connections';
import { outcome } from '../../support/outcome';
import { startMisbehavingServer, Misbehaving } from '../../support/misbehaving-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** Counts connection attempts reaching a port where nothing answers (refused at once). */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let srv: Misbehaving | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

test('during an outage, eight waiting tasks share one reconnect loop, and calls resume when the server is back', async () => {
  srv = await startMisbehavingServer();
  const port = srv.port;
  const pool = new ConnectionSet({ host: '127.0.0.1', port, timeoutMs: 2000, keepaliveMs: 0 }, 8, 1);
  await pool.start();
  await srv.close();
  srv = undefined;

  // Eight closed-loop workers calling through the outage for 1.5 s.
  const outcomes: string[] = [];
  const stopAt = Date.now() + 1500;
  const worker = async () => {
    while (Date.now() < stopAt) outcomes.push(await outcome(pool.use((c) => c.request('test.echo', [1]))));
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const attemptsDuringOutage = pool.stats.connectAttempts;
  expect(outcomes.length).toBeGreaterThan(8);
  expect(outcomes.every((o) => o === 'disconnect')).toBe(true);
  // Backoff 100, 200, 400, 800 ms: about five shared attempts in 1.5 s, plus the first failures of
  // the workers that dialled as the outage began. Per-task retrying would make well over 30.
  expect(attemptsDuringOutage).toBeLessThanOrEqual(1 + 8 + 6);
  expect(pool.down).toBe(true);

  srv = await startMisbehavingServer({ port });
  const t0 = Date.now();
  await expect(pool.use((c) => c.request('test.echo', ['back']))).resolves.toEqual(['back']);
  expect(Date.now() - t0).toBeLessThan(2500); // the next attempt is at most 1 s away
  expect(pool.down).toBe(false);
  expect(pool.stats.outages).toHaveLength(1);
  await pool.close();
});

test('a task is never failed by an attempt that ended before it began waiting', async () => {
  srv = await startMisbehavingServer();
  const port = srv.port;
  const pool = new ConnectionSet({ host: '127.0.0.1', port, timeoutMs: 2000, keepaliveMs: 0 }, 1, 1);
  await pool.start();
  await srv.close();
  srv = undefined;
  // Kill the one pooled connection, then let an attempt fail while nobody else waits.
  expect(await outcome(pool.use((c) => c.request('test.echo', [1])))).toBe('disconnect');
  expect(await outcome(pool.use((c) => c.request('test.echo', [1])))).toBe('disconnect');
  srv = await startMisbehavingServer({ port });
  await sleep(50);
  // The server is back: this task must get a connection, not a stale failure.
  await expect(pool.use((c) => c.request('test.echo', ['fresh']))).resolves.toEqual(['fresh']);
  await pool.close();
});

test('the acquire timeout never exceeds the call timeout', async () => {
  srv = await startMisbehavingServer();
  const pool = new ConnectionSet({ host: '127.0.0.1', port: srv.port, timeoutMs: 300, waitMs: 60_000, keepaliveMs: 0 }, 1, 1);
  await pool.start();
  const busy = pool.use((c) => c.request('test.late', [800, 'slow'], 2000));
  const t0 = Date.now();
  expect(await outcome(pool.use((c) => c.request('test.echo', [1])))).toBe('timeout');
  expect(Date.now() - t0).toBeLessThan(700);
  await busy;
  await pool.close();
});

test('close() cuts short a connect whose server.version never answers', async () => {
  srv = await startMisbehavingServer({ silent: true });
  const pool = new ConnectionSet({ host: '127.0.0.1', port: srv.port, timeoutMs: 30_000, keepaliveMs: 0 }, 1, 1);
  const starting = outcome(pool.start());
  await sleep(200);
  const t0 = Date.now();
  await pool.close();
  expect(await starting).toBe('disconnect');
  expect(Date.now() - t0).toBeLessThan(500);
});

test('close() cuts short the reconnect backoff of an outage', async () => {
  const pool = new ConnectionSet({ host: '127.0.0.1', port: await freePort(), timeoutMs: 30_000, keepaliveMs: 0 }, 2, 1);
  expect(await outcome(pool.start())).toBe('disconnect');
  const waiting = [outcome(pool.use(async () => 1)), outcome(pool.use(async () => 1))];
  await sleep(50);
  const t0 = Date.now();
  await pool.close();
  expect(await Promise.all(waiting)).toEqual(['disconnect', 'disconnect']);
  expect(Date.now() - t0).toBeLessThan(500);
});
