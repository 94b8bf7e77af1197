/**
 * ElectrumX's hold of small replies, named wherever its latencies are shown. From 1.18.0
 * (changelog: "countermeasures against traffic analysis", spesmilo/electrumx#301) its TCP and TLS
 * sessions pad every write with spaces to a power of two of at least 1 KiB, and once a session has
 * sent its first 1 KiB a write under 1 KiB waits up to `PaddedRSTransport.WAIT_FOR_BUFFER_GROWTH_SECONDS`
 * (1.0, a class constant of electrumx/server/transport.py, no environment variable) for more to
 * pad with. A benchmark of such a server measures that wait. Its WebSocket sessions are served by
 * another transport, neither padded nor held. Derived from what every run stores of its servers
 * (the software string `server.version` answered, and the URL), so stored runs say it too. The
 * version cannot tell whether an operator set the constant to 0 (the lab does), so the note says
 * "unless" rather than guessing.
 */

import { HELD_REPLY_MS, observedRepliesIn, type ObservedReplies } from '../core/observed-replies';
import { parseStoredJson } from '../core/stored-json';
import { formatServerUrl } from '../core/server-address';
import type { ServerTarget } from './targets';

/** The first ElectrumX release that pads and holds. */
const FIRST_HOLDING: readonly [number, number] = [1, 18];

/** The URL schemes of a raw-socket session (TCP or TLS), as stored and as older runs stored them. */
const RAW_SOCKET = /^(electrum|electrums|tcp|ssl):\/\//;

export interface ServerIdentity {
  name: string;
  /** What `server.version` answered, e.g. "ElectrumX 1.18.0"; null when never identified. */
  software: string | null;
  url: string;
  /** What the handshake saw on the wire (client.ts probeReplyHold); null or absent in runs before it. */
  replies?: ObservedReplies | null;
}

export interface ReplyHold {
  server: string;
  software: string;
  url: string;
  note: string;
}

/** Whether `software` names an ElectrumX release that pads and holds its raw-socket replies. */
export function holdsReplies(software: string | null): boolean {
  const m = /^ElectrumX\s+(\d+)\.(\d+)/i.exec(software?.trim() ?? '');
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > FIRST_HOLDING[0] || (major === FIRST_HOLDING[0] && minor >= FIRST_HOLDING[1]);
}

/**
 * The note for a server whose latencies contain ElectrumX's hold, or null (another server, over
 * WebSocket, or a padding server seen not to hold). What the handshake saw decides where it was
 * recorded, whatever the server calls itself; runs from before the probe go by the version.
 */
export function replyHoldOf(s: ServerIdentity): ReplyHold | null {
  if (!RAW_SOCKET.test(s.url)) return null;
  const seen = s.replies;
  const software = s.software || 'the server';
  const how = 'pads its replies and holds a small one up to 1 s (a traffic-analysis countermeasure)';
  const without = 'measure without it over ws:// (not padded)';
  let note: string;
  if (seen?.padded && seen.smallReplyMs !== null) {
    if (seen.smallReplyMs < HELD_REPLY_MS) return null; // padded, but the hold is off: the latencies do not contain it
    note =
      `${software} over TCP/TLS ${how}: seen here (a small reply right after a large one took ${Math.round(seen.smallReplyMs)} ms), ` +
      `so these latencies contain that hold (PaddedRSTransport.WAIT_FOR_BUFFER_GROWTH_SECONDS, electrumx/server/transport.py); ${without}`;
  } else if (seen?.padded) {
    note =
      `${software} over TCP/TLS pads its replies (seen here), as ElectrumX does that holds a small one up to 1 s; whether it held them was not measured, ` +
      `so these latencies may contain that hold (PaddedRSTransport.WAIT_FOR_BUFFER_GROWTH_SECONDS, electrumx/server/transport.py); ${without}`;
  } else if (seen) {
    return null; // its replies came unpadded: no padded transport, no hold
  } else {
    if (!holdsReplies(s.software)) return null;
    note =
      `${s.software} over TCP/TLS ${how}: ` +
      'these latencies contain that hold unless the server runs with PaddedRSTransport.WAIT_FOR_BUFFER_GROWTH_SECONDS ' +
      `set to 0 (electrumx/server/transport.py; the lab does, unless ELECTRUM_BENCH_ELECTRUMX_PADDING=on); ${without}`;
  }
  return { server: s.name, software, url: s.url, note };
}

/** A stored server's identity, with what its handshake saw (kept in its setup JSON). */
export function storedIdentity(row: { name: string; software: string | null; url: string; setup_json?: string | null }): ServerIdentity {
  return { name: row.name, software: row.software, url: row.url, replies: observedRepliesIn(parseStoredJson(row.setup_json ?? null)) };
}

/** A target as it said of itself before a run (ensureReachable), for runs whose own connections skip the courtesy calls (wallet syncs). */
export function reachedIdentity(t: ServerTarget, said: ReadonlyMap<string, { software: string; replies?: ObservedReplies }>): ServerIdentity {
  const s = said.get(t.name);
  return { name: t.name, software: s?.software || null, url: formatServerUrl(t, 'tcp'), replies: s?.replies ?? null };
}

/** Each server's setup with what its handshake saw of its replies beside it, as a run stores it (`replies` in setup_json). */
export function setupsWithReplies(setups: ReadonlyMap<string, unknown> | undefined, said: ReadonlyMap<string, { replies?: ObservedReplies }>): Map<string, unknown> {
  const out = new Map(setups ?? []);
  for (const [name, s] of said) {
    if (!s.replies) continue;
    const setup = out.get(name);
    out.set(name, { ...(typeof setup === 'object' && setup !== null ? setup : {}), replies: s.replies });
  }
  return out;
}

/** Each server's note, for those that have one. */
export function replyHolds(servers: readonly ServerIdentity[]): ReplyHold[] {
  return servers.flatMap((s) => replyHoldOf(s) ?? []);
}

/** The one line a summary prints for it. */
export const replyHoldLine = (h: ReplyHold): string => `${h.server}: ${h.note}`;
