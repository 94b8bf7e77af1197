/**
 * An Electrum-protocol server over WebSocket on 127.0.0.1 (the `ws` package's server; wss:// with
 * a certificate given), for the WebSocket transport's tests: one JSON-RPC message or batch per
 * text frame, as ElectrumX and Fulcrum speak it. It keeps every frame it received, so tests can
 * see how requests were framed. Methods:
 *   server.version, server.ping            → as a server answers them
 *   test.echo(x...)                         → result: the params
 *   test.stall                              → never answers
 *   test.oversized(bytes)                   → one answer of about that many bytes (one frame)
 *   test.close                              → closes the connection instead of answering
 *   blockchain.scripthash.get_balance(sh)   → { confirmed: length of sh, unconfirmed: 0 }
 * anything else                             → a JSON-RPC error.
 * It is not a fake of a real server: the lab's ElectrumX and Fulcrum are what is measured.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface WebSocketTestServer {
  port: number;
  /** Every text frame received after the handshake's, as received. */
  frames: string[];
  connections: number;
  close(): Promise<void>;
}

interface Req {
  id: number;
  method: string;
  params: unknown[];
}

export async function startWebSocketServer(opts: { tls?: { cert: Buffer; key: Buffer } } = {}): Promise<WebSocketTestServer> {
  const httpsServer = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }) : undefined;
  const wss = httpsServer ? new WebSocketServer({ server: httpsServer }) : new WebSocketServer({ host: '127.0.0.1', port: 0 });
  const state: WebSocketTestServer = { port: 0, frames: [], connections: 0, close: async () => undefined };
  const sockets = new Set<WebSocket>();
  wss.on('connection', (ws) => {
    state.connections++;
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      const parsed = JSON.parse(text) as Req | Req[];
      if (!(Array.isArray(parsed) ? parsed : [parsed]).some((r) => r.method === 'server.version')) state.frames.push(text);
      if (Array.isArray(parsed)) {
        ws.send(JSON.stringify(parsed.map((r) => answer(r, ws)).filter((a) => a !== null)));
        return;
      }
      const a = answer(parsed, ws);
      if (a !== null) ws.send(JSON.stringify(a));
    });
  });
  if (httpsServer) await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
  else await new Promise<void>((resolve) => wss.once('listening', resolve));
  state.port = ((httpsServer ?? wss).address() as AddressInfo).port;
  state.close = async () => {
    for (const s of sockets) s.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    if (httpsServer) await new Promise<void>((resolve) => httpsServer.close(() => resolve()));
  };
  return state;
}

function answer(r: Req, ws: WebSocket): object | null {
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: r.id, result });
  switch (r.method) {
    case 'server.version':
      return ok(['WebSocket test 0.1', '1.4']);
    case 'server.ping':
      return ok(null);
    case 'test.echo':
      return ok(r.params);
    case 'test.stall':
      return null;
    case 'test.oversized':
      return ok('x'.repeat(Number(r.params[0])));
    case 'test.close':
      ws.close();
      return null;
    case 'blockchain.scripthash.get_balance':
      return ok({ confirmed: String(r.params[0]).length, unconfirmed: 0 });
    default:
      return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `unknown method ${r.method}` } };
  }
}
