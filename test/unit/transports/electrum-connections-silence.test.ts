/**
 * A server that accepts the connection and then does not take part in the handshake is described
 * by what it did, never by the pool's own wait ("ResourceRequest timed out") and never called
 * unreachable.
 */
import { ConnectionSet } from '../../../src/transports/electrum-connections';
import { HandshakeSilence } from '../../../src/electrum/errors';
import { startFailure } from '../../../src/transports/transport';
import { startMisbehavingServer, Misbehaving, MisbehavingOptions } from '../../support/misbehaving-server';

const servers: Misbehaving[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function startAgainst(opts: MisbehavingOptions, timeoutMs: number): Promise<{ err: Error; ms: number; port: number }> {
  const srv = await startMisbehavingServer(opts);
  servers.push(srv);
  const pool = new ConnectionSet({ host: '127.0.0.1', port: srv.port, timeoutMs, keepaliveMs: 0 }, 1, 1);
  const t0 = Date.now();
  try {
    await pool.start();
  } catch (err) {
    return { err: err as Error, ms: Date.now() - t0, port: srv.port };
  } finally {
    await pool.close();
  }
  throw new Error('the pool started');
}

test.each([
  ['never answers', { silent: true }, /^connected, but did not answer server\.version within 1 s$/],
  ['answers without an end of line', { noNewline: true }, /^connected, but sent \d+ bytes and no end of line within 1 s/],
  ['drips its answer a byte at a time', { dripMs: 100 }, /^connected, but sent \d+ bytes and no end of line within 1 s/],
])('a server that %s is described as such, within its timeout', async (_, opts, expected) => {
  const { err, ms, port } = await startAgainst(opts, 1000);
  expect(err).toBeInstanceOf(HandshakeSilence);
  expect(err.message).toMatch(expected);
  expect(ms).toBeLessThan(2500);
  const line = startFailure({ name: 'x', profile: 'electrumx', host: '127.0.0.1', port, tls: false }, err);
  expect(line).toMatch(new RegExp(`^server x \\(tcp://127\\.0\\.0\\.1:${port}\\) connected, but`));
  expect(line).not.toMatch(/unreachable|ResourceRequest/);
});
