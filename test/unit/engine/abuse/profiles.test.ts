/**
 * Each abuse profile's wire shape, on a local server that records every byte per connection and
 * answers each request line with a null result (the profiles' pacing waits for replies).
 */
import net from 'node:net';
import { ABUSE_PROFILES, request, type AbuseRun } from '../../../../src/engine/abuse/profiles';
import type { AbuseTally } from '../../../../src/engine/abuse/wire';
import { startMisbehavingServer, type Misbehaving } from '../../../support/misbehaving-server';
import { startFullBacklog } from '../../../support/full-backlog';

interface Recorded {
  bytes: string;
  closed: boolean;
}

async function recordingServer(): Promise<{ port: number; conns: Recorded[]; close: () => Promise<void> }> {
  const conns: Recorded[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    const rec: Recorded = { bytes: '', closed: false };
    conns.push(rec);
    let pending = '';
    s.on('data', (d) => {
      rec.bytes += d.toString('latin1');
      pending += d.toString('latin1');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        pending = pending.slice(nl + 1);
        s.write('{"jsonrpc":"2.0","id":0,"result":null}\n');
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      rec.closed = true;
      sockets.delete(s);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    conns,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let server: Awaited<ReturnType<typeof recordingServer>>;
beforeEach(async () => {
  server = await recordingServer();
});
afterEach(() => server.close());

function runOf(name: string, params: Record<string, number>, forMs: number, extra: Partial<AbuseRun> = {}): AbuseRun {
  const defaults = Object.fromEntries(Object.entries(ABUSE_PROFILES[name].params).map(([k, p]) => [k, p.default]));
  return { target: { host: '127.0.0.1', port: server.port, tls: false }, params: { ...defaults, ...params }, untilMs: Date.now() + forMs, stopped: () => false, proofs: [], scripthashes: [], ...extra };
}

const lines = (bytes: string) => bytes.split('\n').filter((l) => l.length > 0);

it('subscription-flood subscribes one connection to as many distinct scripthashes as asked, then lets go', async () => {
  const tally = await ABUSE_PROFILES['subscription-flood'].run(runOf('subscription-flood', { subscriptions: 1234, chunk: 100 }, 800));
  expect(server.conns).toHaveLength(1);
  const sent = lines(server.conns[0].bytes).map((l) => JSON.parse(l));
  expect(sent).toHaveLength(1234);
  expect(new Set(sent.map((r) => r.method))).toEqual(new Set(['blockchain.scripthash.subscribe']));
  expect(new Set(sent.map((r) => r.params[0])).size).toBe(1234);
  expect(tally.requestsSent).toBe(1234);
  expect(tally.replies).toBe(1234);
  await new Promise((r) => setTimeout(r, 50));
  expect(server.conns[0].closed).toBe(true);
});

it('unterminated-line writes a request that never ends, growing to its bound', async () => {
  const tally = await ABUSE_PROFILES['unterminated-line'].run(runOf('unterminated-line', { 'max-bytes': 200_000, 'chunk-bytes': 50_000, 'every-ms': 1 }, 600));
  await new Promise((r) => setTimeout(r, 50));
  const bytes = server.conns[0].bytes;
  expect(bytes.startsWith('{"jsonrpc":"2.0","id":1,"method":"server.version"')).toBe(true);
  expect(bytes).not.toContain('\n');
  expect(bytes.length).toBeGreaterThanOrEqual(200_000);
  expect(bytes.length).toBe(tally.bytesSent);
  expect(tally.replies).toBe(0);
});

it('oversized-batch sends arrays of the asked size, each after the last was answered', async () => {
  const tally = await ABUSE_PROFILES['oversized-batch'].run(runOf('oversized-batch', { size: 300, batches: 3 }, 600));
  const batches = lines(server.conns[0].bytes).map((l) => JSON.parse(l));
  expect(batches).toHaveLength(3);
  for (const b of batches) {
    expect(Array.isArray(b)).toBe(true);
    expect(b).toHaveLength(300);
    expect(b[0].method).toBe('blockchain.scripthash.get_balance');
  }
  expect(tally.requestsSent).toBe(900);
});

it('proof-storm asks for Merkle proofs and raw transactions of the given transactions over many connections, to its count', async () => {
  const proofs = [{ txid: 'aa'.repeat(32), height: 5 }, { txid: 'bb'.repeat(32), height: 7 }];
  const tally = await ABUSE_PROFILES['proof-storm'].run(runOf('proof-storm', { connections: 3, 'in-flight': 10, requests: 500 }, 5000, { proofs }));
  expect(server.conns).toHaveLength(3);
  const sent = server.conns.flatMap((c) => lines(c.bytes).map((l) => JSON.parse(l)));
  expect(sent).toHaveLength(500);
  expect(new Set(sent.map((r) => r.method))).toEqual(new Set(['blockchain.transaction.get_merkle', 'blockchain.transaction.get']));
  expect(new Set(sent.map((r) => r.params[0]))).toEqual(new Set(proofs.map((p) => p.txid)));
  expect(server.conns.filter((c) => c.bytes.length > 0).length).toBeGreaterThan(1);
  expect(tally.replies).toBe(500);
});

it('idle-connections opens the asked connections, says nothing, and closes them all when its time is up', async () => {
  const tally = await ABUSE_PROFILES['idle-connections'].run(runOf('idle-connections', { connections: 40, 'per-second': 400 }, 700));
  expect(tally.connections).toBe(40);
  expect(server.conns).toHaveLength(40);
  expect(server.conns.every((c) => c.bytes === '')).toBe(true);
  await new Promise((r) => setTimeout(r, 100));
  expect(server.conns.every((c) => c.closed)).toBe(true);
});

it('a stop ends a profile well before its time is up', async () => {
  let stop = false;
  setTimeout(() => (stop = true), 200);
  const started = Date.now();
  await ABUSE_PROFILES['idle-connections'].run(runOf('idle-connections', { connections: 5 }, 60_000, { stopped: () => stop }));
  expect(Date.now() - started).toBeLessThan(2000);
});

it('a server that closes the connection is counted, and the profile ends', async () => {
  const closing = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
  const port = (closing.address() as net.AddressInfo).port;
  const tally = await ABUSE_PROFILES['subscription-flood'].run({ ...runOf('subscription-flood', {}, 60_000), target: { host: '127.0.0.1', port, tls: false } });
  closing.close();
  expect(tally.connections + tally.refused).toBe(1);
  expect(tally.closedByServer + tally.refused).toBe(1);
});

describe('a stop ends a profile within 2 s whatever its sockets wait on', () => {
  /** Stops `profile` once its writes have backed up (or its connects are stuck) and says how long it took to end after. */
  async function stopMsOn(port: number, name: string, params: Record<string, number>, proofs: AbuseRun['proofs'] = []): Promise<{ ms: number; tally: AbuseTally }> {
    const profile = ABUSE_PROFILES[name];
    // Built first, as a wallet load builds it: the stop comes while the writes are stuck.
    const payload = await profile.prepare?.(runOf(name, params, 0).params, () => false);
    let stoppedAt = 0;
    setTimeout(() => (stoppedAt = Date.now()), 1000);
    const tally = await profile.run({ ...runOf(name, params, 120_000, { proofs, payload, stopped: () => stoppedAt > 0 }), target: { host: '127.0.0.1', port, tls: false } });
    return { ms: Date.now() - stoppedAt, tally };
  }

  let neverReads: Misbehaving;
  beforeAll(async () => (neverReads = await startMisbehavingServer({ neverReads: true })));
  afterAll(() => neverReads.close());

  it.each([
    ['subscription-flood', { subscriptions: 200_000, chunk: 10_000 }],
    ['unterminated-line', { 'chunk-bytes': 16 * 1024 * 1024, 'every-ms': 1 }],
    ['oversized-batch', { size: 200_000 }],
    ['proof-storm', { connections: 4, 'in-flight': 10_000 }],
    ['idle-connections', { connections: 20 }],
  ])('%s, on a server that accepts and never reads', async (name, params) => {
    const { ms, tally } = await stopMsOn(neverReads.port, name, params, [{ txid: 'aa'.repeat(32), height: 5 }]);
    expect(tally.connections).toBeGreaterThan(0);
    expect(ms).toBeLessThan(2000);
  });

  it('idle-connections, on a listener whose accept backlog is full', async () => {
    const full = await startFullBacklog();
    try {
      const { ms, tally } = await stopMsOn(full.port, 'idle-connections', { connections: 20, 'per-second': 1000 });
      // The kernel takes a connection or two before the backlog is full; the rest never open.
      expect(tally.connections).toBeLessThan(20);
      expect(ms).toBeLessThan(2000);
    } finally {
      full.close();
    }
  });
});

describe('payloads built before the abuse begins', () => {
  it.each([
    ['oversized-batch', { size: 50_000 }, 1, 1],
    ['subscription-flood', { subscriptions: 20_000, chunk: 500 }, 40, 20_000],
  ])('%s builds its texts in slices the event loop runs between, and writes what it was given', async (name, params: Record<string, number>, texts, lineCount) => {
    const profile = ABUSE_PROFILES[name];
    let turns = 0;
    const turn = () => {
      turns++;
      if (building) setImmediate(turn);
    };
    let building = true;
    setImmediate(turn);
    const payload = await profile.prepare!(runOf(name, params, 0).params, () => false);
    building = false;
    expect(payload).toHaveLength(texts);
    expect(payload.join('').split('\n').filter((l) => l).length).toBe(lineCount);
    // One turn at least per slice of a thousand lines: no long stretch without the loop.
    expect(turns).toBeGreaterThanOrEqual(20);

    // Given a payload, a profile writes it rather than building its own in the abuse's window.
    const given = payload.map((_, i) => `${request(i, 'given.payload', [])}\n`);
    await profile.run(runOf(name, { ...params, batches: 2 }, 600, { payload: given }));
    const sent = lines(server.conns[0].bytes).map((l) => JSON.parse(l));
    expect(new Set(sent.map((r) => r.method))).toEqual(new Set(['given.payload']));
  });
});
