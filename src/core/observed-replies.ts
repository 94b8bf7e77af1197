/**
 * What a connection's handshake saw of how a server sends its replies over a raw socket: whether
 * they arrive padded with spaces (ElectrumX from 1.18, electrumx/server/transport.py), and, when
 * they do, how long a small reply took right after a large one, which is where its hold of small
 * replies shows (up to 1 s). Stored with each run's server (run_servers.setup_json, `replies`).
 */
export interface ObservedReplies {
  padded: boolean;
  /** The small reply's round trip in ms; null when not probed (not padded, or the probe failed). */
  smallReplyMs: number | null;
}

/** A small reply this slow right after a large one is the hold at work (it waits up to 1 s); a server without it answers in ms. */
export const HELD_REPLY_MS = 500;

/** The observation stored in a server's setup JSON, or null (older runs, WebSocket, REST, or never connected). */
export function observedRepliesIn(setup: unknown): ObservedReplies | null {
  if (typeof setup !== 'object' || setup === null) return null;
  const r = (setup as { replies?: unknown }).replies;
  if (typeof r !== 'object' || r === null) return null;
  const { padded, smallReplyMs } = r as Record<string, unknown>;
  if (typeof padded !== 'boolean') return null;
  return { padded, smallReplyMs: typeof smallReplyMs === 'number' && Number.isFinite(smallReplyMs) ? smallReplyMs : null };
}
