/**
 * How many scripthash subscriptions one connection may hold: subscribed in chunks (lines written at
 * once, not an array, so no batch limit interferes) to scripthashes no chain holds (no history to
 * look up, and no status to send), until one is refused or the plan's bound is reached.
 */
import { createHash } from 'node:crypto';
import type { ElectrumClient } from '../electrum/client';
import type { PastLimit } from '../core/server-limits';
import { connectFrom, pastOfError, recoveryMs, type ProbeContext } from './probe-context';

const CHUNK = 100;

/** The i-th scripthash of the probe: a hash of its number, with no output on any chain. */
export function unusedScripthash(i: number): string {
  return createHash('sha256').update(`electrum-bench limits ${i}`).digest('hex');
}

export interface HeldSubscriptions {
  served: number;
  tried: number;
  past: PastLimit | null;
  recoveryMs: number | null;
  cutShort: boolean;
}

export async function holdSubscriptions(
  c: ProbeContext,
  o: { from: string | undefined; max: number; recoveryWithinMs: number; stop: () => boolean },
): Promise<HeldSubscriptions> {
  let client: ElectrumClient | undefined;
  let served = 0;
  let past: PastLimit | null = null;
  let cutShort = false;
  try {
    client = await connectFrom(c, o.from);
    while (served < o.max && past === null) {
      if (o.stop()) {
        cutShort = true;
        break;
      }
      const n = Math.min(CHUNK, o.max - served);
      const calls = Array.from({ length: n }, (_, i) => ({ method: 'blockchain.scripthash.subscribe', params: [unusedScripthash(served + i)] }));
      const { items } = await client.batch(calls, c.timeoutMs, 'lines');
      for (const item of items) {
        if (!item.ok) {
          past = pastOfError(item.error, c.timeoutMs);
          break;
        }
        served++;
      }
    }
  } catch (err) {
    if (c.signal.aborted) cutShort = true;
    else past = pastOfError(err, c.timeoutMs);
  } finally {
    client?.close();
  }
  if (c.signal.aborted) cutShort = true;
  const recovery = past === null || cutShort ? null : await recoveryMs(c, o.from, o.recoveryWithinMs);
  return { served, tried: past === null ? served : served + 1, past, recoveryMs: recovery, cutShort };
}
