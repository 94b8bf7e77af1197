/**
 * The handshake's look at padded and held replies, against a local server that pads and holds as
 * ElectrumX's PaddedRSTransport does (electrumx/server/transport.py: spaces before the closing
 * bracket up to a power of two of at least 1 KiB; once 1 KiB was sent, a reply under 1 KiB waits
 * until `holdMs` after the previous write), and one that does neither.
 */
import net from 'node:net';
import { ElectrumClient } from '../../../src/electrum/client';

interface Served {
  port: number;
  methods: string[];
  close(): Promise<void>;
}

async function serve(opts: { pad: boolean; holdMs: number }): Promise<Served> {
  const methods: string[] = [];
  const server = net.createServer((socket) => {
    let sentBytes = 0;
    let lastSendAt = 0;
    let buffered = '';
    const send = (line: string) => {
      let out = line;
      if (opts.pad) {
        const size = Math.max(1024, 2 ** Math.ceil(Math.log2(line.length + 1)));
        out = line.slice(0, -2) + ' '.repeat(size - line.length) + line.slice(-2);
      }
      const wait = opts.pad && sentBytes >= 1024 && line.length < 1024 ? Math.max(0, lastSendAt + opts.holdMs - Date.now()) : 0;
      setTimeout(() => {
        socket.write(out);
        sentBytes += line.length;
        lastSendAt = Date.now();
      }, wait);
    };
    socket.on('data', (d) => {
      buffered += d.toString('utf8');
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const req = JSON.parse(buffered.slice(0, nl)) as { id: number; method: string };
        buffered = buffered.slice(nl + 1);
        methods.push(req.method);
        const result =
          req.method === 'server.version' ? ['PaddingServer 1.0', '1.4']
          : req.method === 'blockchain.block.headers' ? { count: 8, hex: '00'.repeat(640), max: 2016 }
          : req.method === 'server.features' ? { hosts: {} }
          : null;
        send(JSON.stringify({ jsonrpc: '2.0', id: req.id, result }) + '\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    methods,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const open: Served[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function handshake(opts: { pad: boolean; holdMs: number }) {
  const served = await serve(opts);
  open.push(served);
  const client = await ElectrumClient.connect({ host: '127.0.0.1', port: served.port, timeoutMs: 5000, probeReplyHold: true });
  client.close();
  return { replies: client.server.replies, methods: served.methods };
}

test('padded replies with the hold: seen, and the small reply after a large one timed at the hold', async () => {
  const { replies, methods } = await handshake({ pad: true, holdMs: 700 });
  expect(replies?.padded).toBe(true);
  expect(replies?.smallReplyMs).toBeGreaterThanOrEqual(600);
  expect(methods.slice(-2)).toEqual(['blockchain.block.headers', 'server.ping']);
});

test('padded replies without the hold (as the lab runs ElectrumX): seen, the small reply prompt', async () => {
  const { replies } = await handshake({ pad: true, holdMs: 0 });
  expect(replies?.padded).toBe(true);
  expect(replies?.smallReplyMs).toBeLessThan(500);
});

test('unpadded replies: nothing held, and no probe asked of the server', async () => {
  const { replies, methods } = await handshake({ pad: false, holdMs: 0 });
  expect(replies).toEqual({ padded: false, smallReplyMs: null });
  expect(methods).not.toContain('server.ping');
  expect(methods).not.toContain('blockchain.block.headers');
});

test("not asked to look (a run's own connections: the look is taken once, before the run), a padding server is asked nothing more", async () => {
  const served = await serve({ pad: true, holdMs: 700 });
  open.push(served);
  const client = await ElectrumClient.connect({ host: '127.0.0.1', port: served.port, timeoutMs: 5000 });
  client.close();
  expect(client.server.replies).toBeUndefined();
  expect(served.methods).not.toContain('server.ping');
});
