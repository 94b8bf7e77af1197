/**
 * The recording proxy that holds workloads to real wallets: it forwards both ways unchanged and
 * records each request's method, params, framing, the batch it was written in (even when a big
 * write reaches it in several reads) and how many were in flight. Against a small echo server of
 * our own: the recorder, not a server, is under test.
 */
import net from 'node:net';
import { WireRecorder, wireProfile } from '../../../src/lab/wire-recorder';

/** Answers every request (a line, or each element of an array line) with its id. */
function echoServer(): Promise<{ port: number; close: () => void }> {
  const server = net.createServer((s) => {
    let buf = '';
    s.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) {
        const p = JSON.parse(l) as { id: number } | Array<{ id: number }>;
        const reply = Array.isArray(p) ? p.map((r) => ({ id: r.id, result: r.id })) : { id: p.id, result: p.id };
        s.write(JSON.stringify(reply) + '\n');
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, close: () => server.close() })));
}

/** Writes `text` at once and resolves when `replies` reply lines came back. */
function exchange(sock: net.Socket, text: string, replies: number): Promise<string[]> {
  return new Promise((resolve) => {
    const got: string[] = [];
    let buf = '';
    const onData = (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      const lines = buf.split('\n');
      buf = lines.pop()!;
      got.push(...lines);
      if (got.length >= replies) {
        sock.off('data', onData);
        resolve(got);
      }
    };
    sock.on('data', onData);
    sock.write(text);
  });
}

test('lines written at once, a JSON array and single calls: each recorded with its framing, batch and what was in flight; bytes passed unchanged', async () => {
  const server = await echoServer();
  const recorder = await WireRecorder.start({ host: '127.0.0.1', port: server.port });
  const sock = net.connect(recorder.port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  const line = (id: number, method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
  // 2,000 lines of ~110 bytes: one write the proxy receives in several reads.
  const many = Array.from({ length: 2000 }, (_, i) => line(i, 'blockchain.transaction.get_merkle', [`${'ab'.repeat(32)}`, i])).join('');
  const replies = await exchange(sock, many, 2000);
  expect(replies.map((r) => (JSON.parse(r) as { id: number }).id)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  await exchange(sock, JSON.stringify([{ id: 5000, method: 'blockchain.scripthash.get_history', params: ['x'] }, { id: 5001, method: 'blockchain.scripthash.get_history', params: ['y'] }]) + '\n', 1);
  await exchange(sock, line(6000, 'server.ping', []), 1);
  sock.destroy();

  const p = wireProfile(recorder.requests);
  expect(recorder.requests).toHaveLength(2003);
  expect([...p.batches.entries()].sort()).toEqual([
    ['blockchain.scripthash.get_history ×2', 1],
    ['blockchain.transaction.get_merkle ×2000', 1],
    ['server.ping ×1', 1],
  ]);
  expect([...p.framings].sort()).toEqual(['array', 'line']);
  // At least the first read's lines were sent before any reply (how many more depends on timing).
  expect(p.maxInFlight).toBeGreaterThan(100);
  expect(recorder.requests.filter((r) => r.framing === 'array').map((r) => r.inFlight)).toEqual([1, 2]);
  expect(p.requests.get(`blockchain.transaction.get_merkle ${JSON.stringify(['ab'.repeat(32), 7])}`)).toBe(1);
  expect(recorder.requests.at(-1)).toMatchObject({ method: 'server.ping', framing: 'line', together: 1, inFlight: 1 });
  await recorder.close();
  server.close();
});

test('a padding client: writes told apart by their power-of-two sizes even when one read brings several; a held connection is timed from its release', async () => {
  const server = await echoServer();
  const recorder = await WireRecorder.start({ host: '127.0.0.1', port: server.port });
  recorder.hold();
  const sock = net.connect(recorder.port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  // Padded as Electrum pads: spaces before the last message's closing brace, to 1024 or 2048 bytes.
  const pad = (lines: string[], size: number) => {
    const text = lines.map((l) => l + '\n').join('');
    return text.slice(0, -2) + ' '.repeat(size - text.length) + '}\n';
  };
  const msg = (id: number) => JSON.stringify({ jsonrpc: '2.0', method: 'blockchain.scripthash.subscribe', id, params: ['ab'.repeat(32)] });
  const writes = pad([msg(0)], 1024) + pad([msg(1), msg(2), msg(3)], 1024) + pad([msg(4), msg(5), msg(6), msg(7), msg(8), msg(9), msg(10), msg(11)], 2048);
  sock.write(writes); // one write: the proxy reads all three at once
  await new Promise((r) => setTimeout(r, 400));
  expect(recorder.requests).toHaveLength(0); // held: nothing read yet
  const released = process.hrtime.bigint();
  recorder.release();
  await new Promise<void>((resolve) => {
    let n = 0;
    sock.on('data', (c) => {
      n += c.toString().split('\n').length - 1;
      if (n >= 12) resolve();
    });
  });
  sock.destroy();
  expect(recorder.requests.map((r) => r.together)).toEqual([1, 3, 3, 3, 8, 8, 8, 8, 8, 8, 8, 8]);
  expect([...wireProfile(recorder.requests).framings]).toEqual(['line, padded']);
  const served = recorder.servedFromNs.get(0)!;
  expect(served).toBeGreaterThanOrEqual(released);
  for (const r of recorder.requests) expect(r.answeredNs).toBeGreaterThanOrEqual(r.sentNs);
  const span = recorder.spanMs(0);
  expect(span).toBeGreaterThan(0);
  expect(span).toBeLessThan(400); // from the release, not from the connect 400 ms before
  await recorder.close();
  server.close();
});

test("a sync's span splits into time with a request in flight and the client's own time between an answer and its next write", async () => {
  const server = await echoServer();
  const recorder = await WireRecorder.start({ host: '127.0.0.1', port: server.port });
  const sock = net.connect(recorder.port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  const connection = recorder.connectionCount - 1;
  const line = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'blockchain.headers.subscribe', params: [] }) + '\n';
  const pauseMs = 60;
  for (let id = 0; id < 3; id++) {
    await exchange(sock, line(id), 1);
    // The client "works" between an answer and its next write; after the last answer it stops.
    if (id < 2) await new Promise((r) => setTimeout(r, pauseMs));
  }
  sock.destroy();
  const { inFlightMs, idleMs } = recorder.splitMs(connection);
  // The two pauses are idle time (a timer fires at most a ms early); the echo answers in far less.
  expect(idleMs).toBeGreaterThanOrEqual(2 * pauseMs - 2);
  expect(inFlightMs).toBeLessThan(idleMs);
  expect(inFlightMs + idleMs).toBeCloseTo(recorder.spanMs(connection), 6);
  expect(() => recorder.splitMs(connection + 1)).toThrow(/no connection/);
  await recorder.close();
  server.close();
});

test("the client's pause before each write of a method: one per write however many reads it takes, measured from the last answer before it", async () => {
  const server = await echoServer();
  const recorder = await WireRecorder.start({ host: '127.0.0.1', port: server.port });
  const sock = net.connect(recorder.port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  const line = (id: number, method: string) => JSON.stringify({ jsonrpc: '2.0', id, method, params: [] }) + '\n';
  const pauseMs = 30;
  await exchange(sock, line(0, 'blockchain.headers.subscribe'), 1);
  await new Promise((r) => setTimeout(r, pauseMs));
  // ~100 KB of lines: one write the proxy receives in several reads.
  await exchange(sock, Array.from({ length: 2000 }, (_, i) => line(1 + i, 'blockchain.scripthash.get_history')).join(''), 2000);
  await new Promise((r) => setTimeout(r, pauseMs));
  await exchange(sock, line(5000, 'server.ping') + line(5001, 'server.ping'), 2);
  sock.destroy();

  const batches = recorder.pausesBeforeMs('blockchain.scripthash.get_history');
  expect(batches).toHaveLength(1);
  expect(batches[0]).toBeGreaterThanOrEqual(pauseMs - 2); // a timer fires at most a ms early
  const pings = recorder.pausesBeforeMs('server.ping');
  expect(pings).toHaveLength(1);
  expect(pings[0]).toBeGreaterThanOrEqual(pauseMs - 2);
  expect(recorder.pausesBeforeMs('blockchain.headers.subscribe')).toEqual([]); // the connection's first write
  await recorder.close();
  server.close();
});
