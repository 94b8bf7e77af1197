/**
 * The adapter's own HTTP/1.1 on real loopback sockets, written byte by byte as clients send it:
 * Esplora's bare-LF heads without Host, pipelined requests answered in order even when a later one
 * is answered first, chunked bodies, curl's Expect: 100-continue, Connection: close and HTTP/1.0,
 * and malformed or oversized requests refused with the connection closed.
 */
import net from 'node:net';
import { serveConnection, type WireRequest } from '../../../../src/lab/adapter/http-wire';
import { until } from '../../../support/until';

let server: net.Server;
let port: number;
const seen: WireRequest[] = [];

beforeAll(async () => {
  server = net.createServer((s) =>
    serveConnection(s, 1000, (req) => {
      seen.push(req);
      const reply = { status: 200, contentType: 'text/plain', body: `${req.method} ${req.target} ${req.body.toString()}` };
      // A slow first answer (a promise) before one ready at once: replies must still leave in order.
      if (req.target === '/slow') return new Promise((r) => setTimeout(() => r(reply), 100));
      return reply;
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => server.close());
beforeEach(() => (seen.length = 0));

/**
 * Writes `chunks` one by one and collects what comes back until the server closes or `until`
 * matches. A chunk given as [bytes, ready] is written once what came back so far makes `ready` true.
 */
async function talk(chunks: Array<string | [string, (text: string) => boolean]>, done: (text: string) => boolean): Promise<{ text: string; closed: boolean }> {
  const sock = net.connect(port, '127.0.0.1');
  let text = '';
  let closed = false;
  sock.on('data', (d) => (text += d.toString('latin1')));
  sock.on('close', () => (closed = true));
  await new Promise((r) => sock.once('connect', r));
  for (const c of chunks) {
    if (typeof c !== 'string') await until('the reply to write after', () => c[1](text), 5_000);
    sock.write(typeof c === 'string' ? c : c[0]);
    await new Promise((r) => setTimeout(r, 5));
  }
  await until('the replies', () => closed || done(text), 5_000);
  sock.destroy();
  return { text, closed };
}

const replies = (text: string) => text.split('HTTP/1.1 ').slice(1);

test('bare-LF head without Host, body by Content-Length, split across writes', async () => {
  const { text, closed } = await talk(['POST / HTTP/1.1\nContent-Le', 'ngth: 5\n\nhel', 'lo'], (t) => t.endsWith('hello'));
  expect(text).toBe('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nPOST / hello');
  expect(closed).toBe(false); // keep-alive by default
});

test('pipelined requests are answered in request order, an answer ready at once waiting for a slower one before it', async () => {
  const { text } = await talk(['GET /slow HTTP/1.1\r\n\r\nGET /fast HTTP/1.1\r\n\r\n'], (t) => replies(t).length === 2 && t.endsWith('/fast '));
  expect(replies(text).map((r) => r.split('\r\n\r\n')[1])).toEqual(['GET /slow ', 'GET /fast ']);
});

test('a chunked body is decoded; trailers are skipped', async () => {
  const { text } = await talk(['POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', '2;ext=1\r\nde\r\n0\r\nX-Trailer: 1\r\n\r\n'], (t) => t.endsWith('abcde'));
  expect(text.endsWith('POST /c abcde')).toBe(true);
});

test('Expect: 100-continue gets a 100 before the body is sent', async () => {
  // The body after the 100, as curl sends it: a head and body read together need no 100 (a loaded
  // machine's 5 ms between writes did not keep them apart once).
  const { text } = await talk(['POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n', ['ok', (t) => t.includes('100 Continue')]], (t) => t.endsWith('ok'));
  expect(text.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')).toBe(true);
});

test('Connection: close and HTTP/1.0 close after the reply; later bytes are not served', async () => {
  const one = await talk(['GET /a HTTP/1.1\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n\r\n'], () => false);
  expect(one.closed).toBe(true);
  expect(replies(one.text)).toHaveLength(1);
  expect(one.text).toContain('Connection: close\r\n');
  const old = await talk(['GET /a HTTP/1.0\r\n\r\n'], () => false);
  expect(old.closed).toBe(true);
});

test('malformed and oversized requests are refused and the connection closed', async () => {
  const bad = await talk(['NONSENSE\r\n\r\n'], () => false);
  expect(bad.text.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
  expect(bad.closed).toBe(true);
  const big = await talk(['POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n'], () => false);
  expect(big.text.startsWith('HTTP/1.1 413 ')).toBe(true);
  expect(big.closed).toBe(true);
  expect(seen).toHaveLength(0);
});
