/**
 * The adapter's HTTP server: JSON-RPC (POST, basic auth with the lab credentials, like bitcoind's
 * rpcauth) and the REST subset (GET /rest/..., unauthenticated, as in Bitcoin Core). If btcd does
 * not answer, the request gets HTTP 503: ElectrumX and bindex both retry on it.
 *
 * Esplora's electrs speaks a minimal HTTP of its own (src/daemon.rs there): request lines end in a
 * bare LF, there is no Host header, and it reads the reply by exact header name (`Content-Length`)
 * and takes the body as one line. Bitcoin Core's libevent server accepts all that, and so does the
 * adapter's own HTTP (http-wire.ts). Replies always carry an explicit length, spelt as Core does:
 * electrs rejects chunked replies.
 */
import { timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import { BtcdUnavailable } from './btcd-client';
import type { AdapterDeps } from './context';
import { basicAuthHeader, type Credentials } from './credentials';
import { serveConnection, type WireReply, type WireRequest } from './http-wire';
import { handleJsonRpc } from './jsonrpc';
import { handleRest } from './rest';

const MAX_BODY = 64 * 1024 * 1024; // a batch of raw transactions stays well below this

/** A net.Server answering the adapter's HTTP, with a way to drop every open connection at stop. */
export interface AdapterServer extends net.Server {
  closeAllConnections(): void;
}

export function createAdapterServer(deps: AdapterDeps, creds: Credentials, log: (line: string) => void): AdapterServer {
  const expected = Buffer.from(basicAuthHeader(creds));
  const authorized = (h: string | undefined) => {
    const got = Buffer.from(h ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  const fail = (req: WireRequest, pathname: string, err: unknown): WireReply => {
    const unavailable = err instanceof BtcdUnavailable;
    if (!unavailable) log(`internal error on ${req.method} ${pathname}: ${(err as Error).stack ?? err}`);
    return { status: unavailable ? 503 : 500, contentType: 'text/plain', body: `${(err as Error).message}\r\n` };
  };
  // Not async: a REST answer the chain store holds is returned as it is, and written at once.
  const handle = (req: WireRequest): WireReply | Promise<WireReply> => {
    const q = req.target.indexOf('?');
    const pathname = q < 0 ? req.target : req.target.slice(0, q);
    try {
      let answer: WireReply | Promise<WireReply>;
      if (req.method === 'GET' && pathname.startsWith('/rest/')) {
        answer = handleRest(pathname, new URLSearchParams(q < 0 ? '' : req.target.slice(q + 1)), deps);
      } else if (req.method !== 'POST') {
        answer = { status: pathname.startsWith('/rest/') ? 404 : 405, contentType: 'text/plain', body: 'JSONRPC server handles only POST requests\r\n' };
      } else if (!authorized(req.headers.get('authorization'))) {
        answer = { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="jsonrpc"' }, body: '' };
      } else {
        answer = handleJsonRpc(req.body.toString('utf8'), deps);
      }
      return answer instanceof Promise ? answer.catch((err) => fail(req, pathname, err)) : answer;
    } catch (err) {
      return fail(req, pathname, err);
    }
  };

  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, MAX_BODY, handle);
  }) as AdapterServer;
  server.closeAllConnections = () => {
    for (const s of sockets) s.destroy();
  };
  return server;
}
