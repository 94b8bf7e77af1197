/**
 * How many connections a server holds open, from one source address and in all: connections are
 * opened one at a time (each must answer server.version and server.ping) and kept, until one is
 * not served or the plan's bound is reached; then every one is closed and the time until a new
 * connection is served again is taken.
 */
import type { ElectrumClient } from '../electrum/client';
import type { PastLimit } from '../core/server-limits';
import { connectFrom, pastOfError, recoveryMs, type ProbeContext } from './probe-context';

export interface HeldConnections {
  /** Connections served before the first that was not (or before the bound). */
  served: number;
  /** Connections asked for: the served ones and the one that failed, if one did. */
  tried: number;
  past: PastLimit | null;
  /** The source address the failing connection came from (undefined: the default route). */
  failedFrom: string | undefined;
  recoveryMs: number | null;
  /** The probe was stopped or ran out of time before it was settled. */
  cutShort: boolean;
}

/**
 * Opens up to `max` connections, the i-th from `sources[i % sources.length]` (undefined: the
 * default route), each source at most `perSource` times.
 */
export async function holdConnections(
  c: ProbeContext,
  o: { sources: ReadonlyArray<string | undefined>; max: number; perSource: number; recoveryWithinMs: number; stop: () => boolean },
): Promise<HeldConnections> {
  const held: ElectrumClient[] = [];
  const max = Math.min(o.max, o.perSource * o.sources.length);
  let past: PastLimit | null = null;
  let failedFrom: string | undefined;
  let cutShort = false;
  try {
    for (let i = 0; i < max; i++) {
      if (o.stop()) {
        cutShort = true;
        break;
      }
      const from = o.sources[i % o.sources.length];
      let client: ElectrumClient | undefined;
      try {
        client = await connectFrom(c, from);
        await client.call('server.ping', []);
        held.push(client);
      } catch (err) {
        client?.close();
        if (c.signal.aborted) {
          cutShort = true;
          break;
        }
        past = pastOfError(err, c.timeoutMs);
        failedFrom = from;
        break;
      }
    }
  } finally {
    for (const client of held) client.close();
  }
  const served = held.length;
  const recovery = past === null ? null : await recoveryMs(c, failedFrom, o.recoveryWithinMs);
  // The server sees the closes a moment later: until it has, the next probe from these sources
  // would meet this one's connections still counted. A source not served again within the wait
  // says the server is not serving at all (fallen over): the others would each wait as long.
  if (!c.signal.aborted) {
    for (const from of new Set(o.sources)) if ((await recoveryMs(c, from, o.recoveryWithinMs)) === null) break;
  }
  return { served, tried: past === null ? served : served + 1, past, failedFrom, recoveryMs: recovery, cutShort };
}
