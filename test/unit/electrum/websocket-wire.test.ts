/**
 * The Electrum client over WebSocket against a real `ws` server in this process: one message per
 * text frame both ways, batches as one frame, the line cap as the largest message taken, a close
 * mid-call, wss:// verified as ssl:// is (refused without --ca, taken with it or --tls-insecure),
 * and the transport the registry gives a ws:// target.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { ElectrumClient, type ClientOptions, type PendingCall } from '../../../src/electrum/client';
import { generateLabCertificates } from '../../../src/lab/certificates';
import type { LabPaths } from '../../../src/lab/config';
import { openPool } from '../../../src/transports/registry';
import { startWebSocketServer, type WebSocketTestServer } from '../../support/websocket-server';
import { failure } from '../../support/outcome';

let srv: WebSocketTestServer;
const clients: ElectrumClient[] = [];

beforeEach(async () => {
  srv = await startWebSocketServer();
});
afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  await srv.close();
});

async function connect(extra: Partial<ClientOptions> = {}): Promise<ElectrumClient> {
  const c = await ElectrumClient.connect({ host: '127.0.0.1', port: srv.port, websocket: true, timeoutMs: 5000, keepaliveMs: 0, ...extra });
  clients.push(c);
  return c;
}

test('negotiates, and sends each request as one text frame without a newline', async () => {
  const c = await connect();
  expect(c.server).toMatchObject({ software: 'WebSocket test 0.1', protocol: '1.4' });
  expect(c.label).toBe(`ws://127.0.0.1:${srv.port}`);
  srv.frames.length = 0;
  const [a, b] = await Promise.all([c.call('test.echo', ['a', 1]), c.call('test.echo', ['b'])]);
  expect(a.result).toEqual(['a', 1]);
  expect(b.result).toEqual(['b']);
  expect(a.responseBytes).toBe(Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 4, result: ['a', 1] })));
  expect(srv.frames).toHaveLength(2);
  for (const f of srv.frames) {
    expect(f).not.toContain('\n');
    expect(JSON.parse(f)).toMatchObject({ jsonrpc: '2.0', method: 'test.echo' });
  }
});

// `ws` reads every chunk through its Receiver (a Writable); its message is emitted from inside that write.
const Receiver = (WebSocket as unknown as { Receiver: { prototype: { _write(chunk: Buffer, enc: string, done: () => void): void } } }).Receiver;

test("a reply's arrival is its last chunk's, before `ws` read the frame: that reading is in neither its latency nor our loop's busy time", async () => {
  const c = await connect({ measureLoop: true });
  const OWN_WORK_MS = 60;
  const read = Receiver.prototype._write;
  const slowRead = jest.spyOn(Receiver.prototype, '_write').mockImplementation(function (this: unknown, ...args) {
    // The test server's receiver is one too: only frames from a server are unmasked (RFC 6455 5.3).
    const fromServer = (args[0][1] & 0x80) === 0;
    const until = performance.now() + (fromServer ? OWN_WORK_MS : 0);
    while (performance.now() < until);
    return read.apply(this, args);
  });
  try {
    const outcome = await c.call('test.echo', ['a']);
    expect(slowRead).toHaveBeenCalled();
    expect(outcome.result).toEqual(['a']);
    expect(Number(outcome.latencyNs) / 1e6).toBeLessThan(OWN_WORK_MS / 2);
    expect(outcome.loopBusyMs).toBeLessThan(OWN_WORK_MS / 2);
  } finally {
    slowRead.mockRestore();
  }
});

test('a batch is one frame holding a JSON array, each item answered', async () => {
  const c = await connect();
  srv.frames.length = 0;
  const out = await c.batch([{ method: 'test.echo', params: [1] }, { method: 'no.such' }, { method: 'test.echo', params: [3] }]);
  expect(srv.frames).toHaveLength(1);
  expect(JSON.parse(srv.frames[0])).toHaveLength(3);
  expect(out.items.map((i) => (i.ok ? i.result : i.error.category))).toEqual([[1], 'server-error', [3]]);
});

test("load's queued calls go out as one frame each in one flush", async () => {
  const c = await connect();
  srv.frames.length = 0;
  const results: unknown[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const call = (): PendingCall => ({
      rpc: 'blockchain.scripthash.get_balance',
      deadline: 0,
      timeoutMs: 0,
      replied: (result) => {
        results.push(result);
        if (results.length === 3) resolve();
      },
      failed: reject,
    });
    for (const sh of ['a', 'bb', 'ccc']) c.queue('blockchain.scripthash.get_balance', sh, call());
  });
  expect(c.flush()).not.toBeNull();
  await done;
  expect(srv.frames.map((f) => JSON.parse(f).params)).toEqual([['a'], ['bb'], ['ccc']]);
  expect(results).toEqual(expect.arrayContaining([{ confirmed: 1, unconfirmed: 0 }, { confirmed: 3, unconfirmed: 0 }]));
});

test('the line cap is the largest message taken: one over it closes the connection as a protocol error, one under it is answered', async () => {
  const c = await connect({ maxLineBytes: 64 * 1024 });
  expect((await c.call<string>('test.oversized', [60_000])).result).toHaveLength(60_000);
  const err = await failure(c.call('test.oversized', [70_000]));
  expect(err.category).toBe('protocol');
  expect(err.message).toBe(`ws://127.0.0.1:${srv.port}: response line exceeds 65536 bytes`);
  expect(c.usable).toBe(false);
});

test('a close mid-call fails the call at once as a disconnect, and the calls after it', async () => {
  const c = await connect();
  const stalled = c.call('test.stall');
  const t0 = Date.now();
  const err = await failure(c.call('test.close'));
  expect(err.category).toBe('disconnect');
  expect(err.message).toMatch(/closed the connection/);
  expect(Date.now() - t0).toBeLessThan(4000); // well before the 5 s call timeout
  expect((await failure(stalled)).category).toBe('disconnect');
  expect((await failure(c.call('test.echo'))).category).toBe('disconnect');
});

test('a call without an answer times out, and the connection is no longer lent', async () => {
  const c = await connect({ timeoutMs: 300 });
  const err = await failure(c.call('test.stall'));
  expect(err.category).toBe('timeout');
  expect(c.usable).toBe(false);
});

test('unreachable, and a plain Electrum server dialled as ws://: one line saying so', async () => {
  const closed = await startWebSocketServer();
  const port = closed.port;
  await closed.close();
  const refused = await failure(ElectrumClient.connect({ host: '127.0.0.1', port, websocket: true, timeoutMs: 2000 }));
  expect(refused.message).toMatch(new RegExp(`^cannot connect to ws://127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
  // What an Electrum server answers a line that is not JSON-RPC (the upgrade request's first line).
  const tcp = net.createServer((s) => s.once('data', () => s.end('{"jsonrpc":"2.0","error":{"code":-32700,"message":"invalid JSON"},"id":null}\n')));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const tcpPort = (tcp.address() as net.AddressInfo).port;
  try {
    const wrong = await failure(ElectrumClient.connect({ host: '127.0.0.1', port: tcpPort, websocket: true, timeoutMs: 2000 }));
    expect(wrong.category).toBe('disconnect');
    expect(wrong.message).toMatch(new RegExp(`^cannot connect to ws://127\\.0\\.0\\.1:${tcpPort}: \\S`));
    expect(wrong.message).not.toContain('\n');
  } finally {
    await new Promise((resolve) => tcp.close(resolve));
  }
});

test('a stop cuts a pending connect short, and nothing is thrown later', async () => {
  const aborter = new AbortController();
  const pending = ElectrumClient.connect({ host: '127.0.0.1', port: srv.port, websocket: true, timeoutMs: 5000, signal: aborter.signal });
  aborter.abort();
  const err = await failure(pending);
  expect(err.message).toMatch(/abandoned \(stopping\)/);
  await new Promise((r) => setTimeout(r, 100)); // an unheard 'error' from ws would fail the test here
});

describe('wss://', () => {
  let dir: string;
  let tlsSrv: WebSocketTestServer;
  let caFile: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-wss-'));
    const files = await generateLabCertificates({ tlsDir: path.join(dir, 'tls') } as LabPaths);
    caFile = files.caFile;
    tlsSrv = await startWebSocketServer({ tls: { cert: fs.readFileSync(files.fullChainFile), key: fs.readFileSync(files.keyFile) } });
  });
  afterAll(async () => {
    await tlsSrv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const secure = (extra: Partial<ClientOptions>) => ElectrumClient.connect({ host: '127.0.0.1', port: tlsSrv.port, websocket: true, tls: true, timeoutMs: 5000, keepaliveMs: 0, ...extra });

  test('refused without the CA, verified with --ca, taken with --tls-insecure', async () => {
    const refused = await failure(secure({}));
    expect(refused.message).toMatch(new RegExp(`^cannot connect to wss://127\\.0\\.0\\.1:${tlsSrv.port}: .*(certificate|verify)`, 'i'));
    for (const extra of [{ ca: fs.readFileSync(caFile) }, { tlsInsecure: true }]) {
      const c = await secure(extra);
      clients.push(c);
      expect(c.label).toBe(`wss://127.0.0.1:${tlsSrv.port}`);
      expect((await c.call('test.echo', ['over tls'])).result).toEqual(['over tls']);
    }
  });

  test('the registry opens a ws:// target through the WebSocket transport', async () => {
    const target = { name: 'w', profile: 'fulcrum' as const, host: '127.0.0.1', port: tlsSrv.port, tls: true, websocket: true };
    const pool = openPool(target, { timeoutMs: 5000, maxLineBytes: 1 << 20, tlsInsecure: false, ca: fs.readFileSync(caFile), concurrency: 2, clientName: 'test' });
    try {
      expect((await pool.start()).software).toBe('WebSocket test 0.1');
      const out = await pool.use((caller) => caller.call('blockchain.scripthash.get_balance', ['abcd']));
      expect(out.result).toEqual({ confirmed: 4, unconfirmed: 0 });
    } finally {
      pool.close();
    }
  });
});
