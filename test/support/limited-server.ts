/**
 * A deliberately limited Electrum server for the `limits` probes' unit tests: it answers
 * server.version, server.ping and scripthash subscriptions, and enforces limits of its own — at most
 * `perSource` connections per source address (the next closed unanswered), `batch` requests per
 * array (an error past it), `lineBytes` per request line (an error, then the connection closed),
 * `subscriptions` per connection (an error) — or, with `silent`, answers nothing at all, and with
 * `hangBatches` no array.
 */
import net from 'node:net';

export interface LimitedOptions {
  perSource?: number;
  batch?: number;
  lineBytes?: number;
  subscriptions?: number;
  silent?: boolean;
  hangBatches?: boolean;
  /** Answers server.version, then nothing: a probe's call after the handshake waits. */
  versionOnly?: boolean;
}

export interface Limited {
  port: number;
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

export async function startLimitedServer(o: LimitedOptions): Promise<Limited> {
  const sockets = new Set<net.Socket>();
  const bySource = new Map<string, number>();
  const state = { connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    const source = socket.remoteAddress ?? '';
    bySource.set(source, (bySource.get(source) ?? 0) + 1);
    socket.on('close', () => {
      sockets.delete(socket);
      bySource.set(source, (bySource.get(source) ?? 1) - 1);
    });
    if (o.perSource !== undefined && bySource.get(source)! > o.perSource) return void socket.destroy();
    if (o.silent) return;
    let buffered = Buffer.alloc(0);
    let subscribed = 0;
    const answer = (req: { id: unknown; method?: string }) => {
      if (req.method === 'blockchain.scripthash.subscribe' && o.subscriptions !== undefined && ++subscribed > o.subscriptions) {
        return { jsonrpc: '2.0', id: req.id, error: { code: 5, message: 'too many subscriptions' } };
      }
      return { jsonrpc: '2.0', id: req.id, result: req.method === 'server.version' ? ['limited 1.0', '1.4'] : null };
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let nl = buffered.indexOf(10); nl !== -1; nl = buffered.indexOf(10)) {
        const line = buffered.subarray(0, nl);
        buffered = buffered.subarray(nl + 1);
        if (o.lineBytes !== undefined && line.length + 1 > o.lineBytes) {
          socket.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 3, message: 'line too long' } }) + '\n');
          return;
        }
        const msg = JSON.parse(line.toString('utf8')) as { id: unknown; method?: string } | Array<{ id: unknown; method?: string }>;
        if (o.versionOnly && (Array.isArray(msg) || msg.method !== 'server.version')) continue;
        if (!Array.isArray(msg)) socket.write(JSON.stringify(answer(msg)) + '\n');
        else if (o.hangBatches) continue;
        else if (o.batch !== undefined && msg.length > o.batch) socket.write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 4, message: 'batch too large' } }) + '\n');
        else socket.write(JSON.stringify(msg.map(answer)) + '\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
