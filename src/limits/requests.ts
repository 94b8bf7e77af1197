/**
 * Probes of one request's shape, each on a connection of its own (a server may close it past its
 * limit): a JSON-RPC batch of n pings, a request line padded to n bytes, and a batch of n copies of
 * one history whose single reply line grows with n.
 */
import { rawExchange, type RawExchange } from '../electrum/raw-exchange';
import type { ProbeResult } from './search';
import { pastOfEnding, parses, replyError, VERSION_LINE, type ProbeContext } from './probe-context';

function exchange(c: ProbeContext, from: string | undefined, line: string | Buffer): Promise<RawExchange> {
  return rawExchange({ host: c.host, port: c.port, localAddress: from, writes: [VERSION_LINE, line], replies: 2, timeoutMs: c.timeoutMs, maxLineBytes: c.maxLineBytes, signal: c.signal });
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'server.ping', params: [] });

/** What the server did with an array of `n` requests: every item answered, or how it was not. */
function batchOutcome(x: RawExchange, n: number, c: ProbeContext): ProbeResult {
  const version = x.lines[0] === undefined || !parses(x.lines[0]) ? null : replyError(JSON.parse(x.lines[0]));
  if (version) return { ok: false, past: version };
  if (x.ending !== 'replied') return { ok: false, past: pastOfEnding(x, c.timeoutMs) };
  const line = x.lines[1];
  if (!parses(line)) return { ok: false, past: { kind: 'error', code: null, message: `unparsable reply: ${line.slice(0, 80)}` } };
  const reply: unknown = JSON.parse(line);
  if (!Array.isArray(reply)) return { ok: false, past: replyError(reply) ?? { kind: 'error', code: null, message: `not an array: ${line.slice(0, 80)}` } };
  for (const item of reply) {
    const err = replyError(item);
    if (err) return { ok: false, past: err };
  }
  if (reply.length < n) return { ok: false, past: reply.length === 0 ? { kind: 'empty' } : { kind: 'truncated' } };
  return { ok: true, bytes: x.lineBytes[1] };
}

/** A batch (one JSON array) of `n` server.ping requests. */
export async function probeBatch(c: ProbeContext, from: string | undefined, n: number): Promise<ProbeResult> {
  const items = Array.from({ length: n }, (_, i) => ping(i + 1));
  return batchOutcome(await exchange(c, from, JSON.stringify(items) + '\n'), n, c);
}

/**
 * One server.ping request line of `bytes` bytes, newline included: the JSON padded with spaces
 * before its closing brace, which every JSON parser takes (RFC 8259 §2, insignificant whitespace).
 */
export async function probeLineBytes(c: ProbeContext, from: string | undefined, bytes: number): Promise<ProbeResult> {
  const head = JSON.stringify(ping(1)).slice(0, -1);
  const pad = Math.max(0, bytes - head.length - 2);
  const line = Buffer.alloc(head.length + pad + 2, 0x20);
  line.write(head, 0, 'latin1');
  line.write('}\n', head.length + pad, 'latin1');
  const x = await exchange(c, from, line);
  if (x.ending !== 'replied') return { ok: false, past: pastOfEnding(x, c.timeoutMs) };
  const reply = parses(x.lines[1]) ? (JSON.parse(x.lines[1]) as unknown) : undefined;
  if (reply === undefined) return { ok: false, past: { kind: 'error', code: null, message: `unparsable reply: ${x.lines[1].slice(0, 80)}` } };
  return replyError(reply) ? { ok: false, past: replyError(reply)! } : { ok: true };
}

/** A batch of `n` copies of one scripthash's get_history: one reply line about n times its size. */
export async function probeResponseBytes(c: ProbeContext, from: string | undefined, scripthash: string, n: number): Promise<ProbeResult> {
  const items = Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'blockchain.scripthash.get_history', params: [scripthash] }));
  return batchOutcome(await exchange(c, from, JSON.stringify(items) + '\n'), n, c);
}
