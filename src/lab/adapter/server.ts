/**
 * The adapter's HTTP server: JSON-RPC (POST, basic auth with the lab credentials, like bitcoind's
 * rpcauth) and the REST subset (GET /rest/..., unauthenticated, as in Bitcoin Core). If btcd does
 * not answer, the request gets HTTP 503: ElectrumX and bindex both retry on it.
 *
 * Esplora's electrs speaks a minimal HTTP of its own (src/daemon.rs there): request lines end in a
 * bare LF, there is no Host header, and it reads the reply by exact header name (`Content-Length`)
 * and takes the body as one line. Bitcoin Core's libevent server accepts all that; Node's strict
 * parser answers 400, so the adapter (loopback only) uses the lenient parser and no Host check.
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { BtcdUnavailable } from './btcd-client';
import type { AdapterDeps } from './context';
import { basicAuthHeader, type Credentials } from './credentials';
import { handleJsonRpc, type HttpReply } from './jsonrpc';
import { handleRest } from './rest';

const MAX_BODY = 64 * 1024 * 1024; // a batch of raw transactions stays well below this

export function createAdapterServer(deps: AdapterDeps, creds: Credentials, log: (line: string) => void): http.Server {
  const expected = Buffer.from(basicAuthHeader(creds));
  const authorized = (h: string | undefined) => {
    const got = Buffer.from(h ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  return http.createServer({ insecureHTTPParser: true, requireHostHeader: false }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://adapter');
    const send = (r: HttpReply) => {
      const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
      // Explicit length, spelt as Core does: electrs rejects chunked replies, and Esplora's electrs
      // looks the header up by its exact name.
      res.writeHead(r.status, { 'Content-Type': r.contentType, 'Content-Length': body.length });
      res.end(body);
    };
    const fail = (err: unknown) => {
      const unavailable = err instanceof BtcdUnavailable;
      if (!unavailable) log(`internal error on ${req.method} ${url.pathname}: ${(err as Error).stack ?? err}`);
      send({ status: unavailable ? 503 : 500, contentType: 'text/plain', body: `${(err as Error).message}\r\n` });
    };

    if (req.method === 'GET' && url.pathname.startsWith('/rest/')) {
      req.resume();
      handleRest(url.pathname, url.searchParams, deps).then(send, fail);
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      send({ status: url.pathname.startsWith('/rest/') ? 404 : 405, contentType: 'text/plain', body: 'JSONRPC server handles only POST requests\r\n' });
      return;
    }
    if (!authorized(req.headers.authorization)) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="jsonrpc"', 'Content-Length': 0 });
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      handleJsonRpc(Buffer.concat(chunks).toString('utf8'), deps).then(send, fail);
    });
  });
}
