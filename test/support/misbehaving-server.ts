/**
 * A deliberately misbehaving Electrum-protocol server on 127.0.0.1 for the client's fault tests.
 * It negotiates like a real server, then does whatever the called method's name asks:
 *   test.echo(x...)       → result: the params
 *   test.stall            → never answers
 *   test.late(ms, x)      → answers x after ms
 *   test.garbage          → a line that is not JSON
 *   test.wrong_id         → an answer with an id nobody asked for
 *   test.oversized(bytes) → one answer line of about that many bytes
 *   test.cut              → half an answer, then closes the connection
 *   test.error(code, msg) → a JSON-RPC error object
 * It is not a fake of a real server: no test uses it for anything a real server answers.
 */
import net from 'node:net';

export interface Misbehaving {
  port: number;
  pings: number;
  connections: number;
  close(): Promise<void>;
}

interface Req {
  id: number;
  method: string;
  params: unknown[];
}

export async function startMisbehavingServer(): Promise<Misbehaving> {
  const sockets = new Set<net.Socket>();
  const state = { pings: 0, connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const msg = JSON.parse(line) as Req | Req[];
        if (Array.isArray(msg)) {
          const answers = msg.map((r) => answer(r)).filter((a): a is object => a !== null);
          socket.write(JSON.stringify(answers) + '\n');
        } else {
          handle(socket, msg);
        }
      }
    });
  });

  function answer(r: Req): object | null {
    switch (r.method) {
      case 'server.version':
        return { jsonrpc: '2.0', id: r.id, result: ['Misbehaving 0.1', '1.4'] };
      case 'server.ping':
        state.pings++;
        return { jsonrpc: '2.0', id: r.id, result: null };
      case 'test.echo':
        return { jsonrpc: '2.0', id: r.id, result: r.params };
      case 'test.error':
        return { jsonrpc: '2.0', id: r.id, error: { code: r.params[0], message: r.params[1] } };
      default:
        return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `unknown method ${r.method}` } };
    }
  }

  function handle(socket: net.Socket, r: Req): void {
    switch (r.method) {
      case 'test.stall':
        return;
      case 'test.late':
        setTimeout(() => socket.write(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: r.params[1] }) + '\n'), r.params[0] as number);
        return;
      case 'test.garbage':
        socket.write('this is not json\n');
        return;
      case 'test.wrong_id':
        socket.write(JSON.stringify({ jsonrpc: '2.0', id: r.id + 1000, result: 'for someone else' }) + '\n');
        return;
      case 'test.oversized': {
        const filler = 'x'.repeat(1024 * 1024);
        const chunks = Math.ceil((r.params[0] as number) / filler.length);
        socket.write(`{"jsonrpc":"2.0","id":${r.id},"result":"`);
        for (let i = 0; i < chunks && !socket.destroyed; i++) socket.write(filler);
        socket.write('"}\n');
        return;
      }
      case 'test.cut':
        socket.write(`{"jsonrpc":"2.0","id":${r.id},"result":"half`, () => socket.destroy());
        return;
      default: {
        const a = answer(r);
        if (a) socket.write(JSON.stringify(a) + '\n');
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get pings() {
      return state.pings;
    },
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
