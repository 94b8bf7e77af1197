/**
 * Before anything is written: one connection to each target, of its own transport (an unreachable
 * server is the user's to fix), and an Electrum server on another chain than the dataset's refused.
 */
import { targetUrl, type ServerTarget } from '../servers/targets';
import { startFailure, type MeasuringPool } from '../transports/transport';
import type { ServerInfo } from '../electrum/client';
import { openPool, transportOf } from '../transports/registry';
import { wrongChain, type ExpectedNetwork } from '../dataset/expected-network';
import { headerHash, isHeaderHex } from '../dataset/network';
import { releaseClaims } from '../core/output-path';
import { UserError } from '../core/user-error';
import { onSignalBeforeStart } from './signals';

/**
 * One connection to each target, of its own transport, before anything is written: an unreachable
 * server is the user's to fix. With `expected`, an Electrum server whose block 0 is another
 * chain's than the dataset's is refused too.
 */
export async function ensureReachable(
  targets: ServerTarget[],
  o: { timeoutMs: number; maxLineBytes: number; tlsInsecure: boolean; ca?: Buffer },
  expected?: ExpectedNetwork | null,
): Promise<Map<string, ServerInfo>> {
  const handOver = onSignalBeforeStart(releaseClaims);
  try {
    return await reachEach(targets, o, expected);
  } finally {
    handOver();
  }
}

/** What each server said of itself on that connection, by name, with what it showed of held replies: the run's one look at them. */
async function reachEach(targets: ServerTarget[], o: Parameters<typeof ensureReachable>[1], expected?: ExpectedNetwork | null): Promise<Map<string, ServerInfo>> {
  const said = new Map<string, ServerInfo>();
  for (const t of targets) {
    const pool = openPool(t, { timeoutMs: o.timeoutMs, maxLineBytes: o.maxLineBytes, tlsInsecure: o.tlsInsecure, ca: o.ca, concurrency: 1, clientName: 'electrum-bench', probeReplyHold: true });
    try {
      try {
        said.set(t.name, await pool.start());
      } catch (err) {
        throw new UserError(startFailure(t, err));
      }
      if (expected && transportOf(t).speaksElectrum) await checkChain(t, pool, expected);
    } finally {
      pool.close();
    }
  }
  return said;
}

async function checkChain(t: ServerTarget, pool: MeasuringPool, expected: ExpectedNetwork): Promise<void> {
  let header: unknown;
  try {
    header = (await pool.use((c) => c.call('blockchain.block.header', [0]))).result;
  } catch {
    return; // a server that does not serve headers cannot be checked; its answers will show the rest
  }
  if (!isHeaderHex(header)) return;
  const chain = wrongChain(expected, headerHash(header));
  if (chain) throw new UserError(`server ${t.name} (${targetUrl(t)}) is on ${chain}, not the chain of ${expected.source}`);
}
