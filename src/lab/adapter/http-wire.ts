/**
 * The adapter's HTTP/1.1 on a plain socket: request heads, bodies (Content-Length or chunked) and
 * replies with an explicit Content-Length. Node's http server cost the adapter about twice its
 * whole answer per request (docs/findings/2026-11-28-fast-adapter.md): electrs 0.12 fetches every
 * transaction it serves as one `/rest/blockpart/` request, tens of thousands per bench pass.
 *
 * It is as lenient as Bitcoin Core's libevent server and as Esplora's electrs needs: lines may end
 * in a bare LF, there may be no Host header. Requests on one connection are answered in order
 * (pipelining is allowed); the connection stays open unless the client asks otherwise.
 */
import type net from 'node:net';

export interface WireRequest {
  method: string;
  target: string; // as sent: path and query
  headers: Map<string, string>; // lower-case names; repeated headers joined with ", "
  body: Buffer;
}

export interface WireReply {
  status: number;
  contentType?: string;
  headers?: Record<string, string | number>;
  body: Buffer | string;
}

const MAX_HEAD = 64 * 1024;

const REASONS: Record<number, string> = {
  100: 'Continue',
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** A reply as bytes: status line, headers, blank line, body in one buffer (one write, one syscall). */
export function replyBytes(r: WireReply, close: boolean): Buffer {
  const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
  let head = `HTTP/1.1 ${r.status} ${REASONS[r.status] ?? 'Unknown'}\r\n`;
  if (r.contentType) head += `Content-Type: ${r.contentType}\r\n`;
  for (const [k, v] of Object.entries(r.headers ?? {})) head += `${k}: ${v}\r\n`;
  head += `Content-Length: ${body.length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
  const headLength = Buffer.byteLength(head, 'latin1');
  const out = Buffer.allocUnsafe(headLength + body.length);
  out.write(head, 0, 'latin1');
  body.copy(out, headLength);
  return out;
}

class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads requests off `socket`, hands each to `handle`, writes the replies in request order.
 * `maxBody` bounds a request body; a larger one gets 413 and the connection is closed.
 */
export function serveConnection(socket: net.Socket, maxBody: number, handle: (req: WireRequest) => WireReply | Promise<WireReply>): void {
  socket.setNoDelay(true);
  let pending: Buffer = Buffer.alloc(0);
  let queue: Promise<void> = Promise.resolve();
  let queued = 0; // replies waiting their turn
  let closing = false;

  const write = (r: WireReply, close: boolean) => {
    if (socket.destroyed) return;
    socket.write(replyBytes(r, close));
    if (close) socket.end();
  };
  const send = (reply: WireReply | Promise<WireReply>, close: boolean) => {
    // An answer ready at once, with none before it still waiting, goes out now: no promise turn.
    if (queued === 0 && !(reply instanceof Promise)) return write(reply, close);
    queued++;
    queue = queue.then(async () => {
      const r = await Promise.resolve(reply).catch((err: Error) => ({ status: 500, contentType: 'text/plain', body: `${err.message}\r\n` }));
      queued--;
      write(r, close);
    });
  };

  socket.on('data', (chunk: Buffer) => {
    if (closing) return;
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    try {
      for (;;) {
        const parsed = parseRequest(pending, maxBody, () => socket.write('HTTP/1.1 100 Continue\r\n\r\n'));
        if (!parsed) break;
        pending = pending.subarray(parsed.used);
        const close = wantsClose(parsed.version, parsed.request.headers);
        send(handle(parsed.request), close);
        if (close) {
          closing = true;
          break;
        }
      }
    } catch (err) {
      if (!(err instanceof BadRequest)) throw err;
      closing = true;
      send(Promise.resolve({ status: err.status, contentType: 'text/plain', body: `${err.message}\r\n` }), true);
    }
  });
  socket.on('error', () => socket.destroy());
}

function wantsClose(version: string, headers: Map<string, string>): boolean {
  const connection = (headers.get('connection') ?? '').toLowerCase();
  if (version === 'HTTP/1.0') return !connection.includes('keep-alive');
  return connection.includes('close');
}

interface Parsed {
  request: WireRequest;
  version: string;
  used: number; // bytes of `buf` this request took
}

/** One whole request from the front of `buf`, or null if more bytes are needed. */
function parseRequest(buf: Buffer, maxBody: number, onExpectContinue: () => void): Parsed | null {
  const headEnd = findHeadEnd(buf);
  if (headEnd === null) {
    if (buf.length > MAX_HEAD) throw new BadRequest(431, 'request head too large');
    return null;
  }
  const lines = buf.toString('latin1', 0, headEnd.at).split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const [method, target, version] = lines[0].split(' ');
  if (!method || !target || !version?.startsWith('HTTP/1.')) throw new BadRequest(400, 'malformed request line');
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new BadRequest(400, 'malformed header line');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const prior = headers.get(name);
    headers.set(name, prior === undefined ? value : `${prior}, ${value}`);
  }
  const bodyStart = headEnd.next;
  const request = (body: Buffer): WireRequest => ({ method, target, headers, body });

  if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) {
    const chunked = readChunked(buf, bodyStart, maxBody);
    if (!chunked) return null;
    return { request: request(chunked.body), version, used: chunked.next };
  }
  const rawLength = headers.get('content-length') ?? '0';
  if (!/^\d+$/.test(rawLength)) throw new BadRequest(400, 'invalid Content-Length');
  const length = Number(rawLength);
  if (length > maxBody) throw new BadRequest(413, 'request body too large');
  if (buf.length < bodyStart + length) {
    // curl asks before sending a large body; say go once, when the head is complete.
    if (buf.length === bodyStart && (headers.get('expect') ?? '').toLowerCase() === '100-continue') onExpectContinue();
    return null;
  }
  return { request: request(Buffer.from(buf.subarray(bodyStart, bodyStart + length))), version, used: bodyStart + length };
}

/** Where the head ends (its last line's end) and the body starts; lines end in CRLF or a bare LF. */
function findHeadEnd(buf: Buffer): { at: number; next: number } | null {
  let lf = buf.indexOf(10);
  while (lf >= 0) {
    if (buf[lf + 1] === 10) return { at: lf, next: lf + 2 };
    if (buf[lf + 1] === 13 && buf[lf + 2] === 10) return { at: lf, next: lf + 3 };
    lf = buf.indexOf(10, lf + 1);
  }
  return null;
}

/** A chunked body (RFC 9112 §7.1) from `start`, or null if incomplete; trailers are skipped. */
function readChunked(buf: Buffer, start: number, maxBody: number): { body: Buffer; next: number } | null {
  const parts: Buffer[] = [];
  let size = 0;
  let at = start;
  for (;;) {
    const lf = buf.indexOf(10, at);
    if (lf < 0) return null;
    const n = parseInt(buf.toString('latin1', at, lf).split(';')[0].trim(), 16);
    if (!Number.isFinite(n) || n < 0) throw new BadRequest(400, 'malformed chunk size');
    at = lf + 1;
    if (n === 0) break;
    size += n;
    if (size > maxBody) throw new BadRequest(413, 'request body too large');
    if (buf.length < at + n + 1) return null;
    parts.push(buf.subarray(at, at + n));
    at += n;
    at += buf[at] === 13 ? 2 : 1;
  }
  for (;;) {
    const lf = buf.indexOf(10, at);
    if (lf < 0) return null;
    const empty = lf === at || (lf === at + 1 && buf[at] === 13);
    at = lf + 1;
    if (empty) return { body: Buffer.concat(parts), next: at };
  }
}
