/**
 * Raw exchanges end as the server ended them: every awaited line, a close, silence, no listener, a
 * line longer than allowed, or the caller's stop, each at once.
 */
import net from 'node:net';
import { rawExchange } from '../../../src/electrum/raw-exchange';
import { startLimitedServer } from '../../support/limited-server';

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'server.ping', params: [] }) + '\n';

test('replies, a close, silence, no listener, a too-long line and a stop', async () => {
  const limited = await startLimitedServer({ lineBytes: 100 });
  const silent = await startLimitedServer({ silent: true });
  const free = net.createServer();
  await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
  const dead = (free.address() as net.AddressInfo).port;
  await new Promise<void>((r) => free.close(() => r()));
  const base = { host: '127.0.0.1', timeoutMs: 2000, maxLineBytes: 1 << 16 };
  try {
    const two = await rawExchange({ ...base, port: limited.port, writes: [ping(1), ping(2)], replies: 2 });
    expect({ ending: two.ending, lines: two.lines.map((l) => JSON.parse(l).id), bytes: two.lineBytes }).toEqual({ ending: 'replied', lines: [1, 2], bytes: [two.lines[0].length + 1, two.lines[1].length + 1] });
    const long = await rawExchange({ ...base, port: limited.port, writes: [ping(1), 'x'.repeat(200) + '\n'], replies: 3 });
    expect({ ending: long.ending, lines: long.lines.length }).toEqual({ ending: 'closed', lines: 2 });
    expect(JSON.parse(long.lines[1]).error.message).toBe('line too long');
    expect((await rawExchange({ ...base, port: silent.port, writes: [ping(1)], replies: 1, timeoutMs: 200 })).ending).toBe('timeout');
    expect(await rawExchange({ ...base, port: dead, writes: [ping(1)], replies: 1 })).toMatchObject({ ending: 'refused', errorCode: 'ECONNREFUSED' });
    expect((await rawExchange({ ...base, port: limited.port, writes: [ping(1)], replies: 1, maxLineBytes: 10 })).ending).toBe('too-long');
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const stopped = await rawExchange({ ...base, port: silent.port, writes: [ping(1)], replies: 1, timeoutMs: 30_000, signal: stop.signal });
    expect(stopped.ending).toBe('aborted');
    expect(stopped.ms).toBeLessThan(2000);
  } finally {
    await Promise.all([limited.close(), silent.close()]);
  }
});
