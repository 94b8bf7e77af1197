/**
 * What every probe of `limits` shares: where the server is, how long a probe waits, how a failed
 * call reads as what the server did past a limit, and whether the server serves normally again.
 */
import { ElectrumClient } from '../electrum/client';
import { ElectrumError } from '../electrum/errors';
import { rawExchange, type RawExchange } from '../electrum/raw-exchange';
import type { PastLimit } from '../core/server-limits';

export interface ProbeContext {
  host: string;
  port: number;
  /** How long one probe waits for its answer (and a connection for its handshake). */
  timeoutMs: number;
  /** Bytes of the largest reply line read. */
  maxLineBytes: number;
  signal: AbortSignal;
}

export const CLIENT_NAME = 'electrum-bench limits';
export const VERSION_LINE = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'server.version', params: [CLIENT_NAME, ['1.4', '1.6']] }) + '\n';

/**
 * A probe's connection, closed by a stop at any point of its life: the client listens to the
 * signal only until its handshake is done, and a probe's call after it (a batch, a history that
 * is the server's largest reply) would otherwise keep a stop waiting its whole timeout.
 */
export async function connectFrom(c: ProbeContext, localAddress: string | undefined): Promise<ElectrumClient> {
  const client = await ElectrumClient.connect({
    host: c.host,
    port: c.port,
    timeoutMs: c.timeoutMs,
    connectTimeoutMs: c.timeoutMs,
    maxLineBytes: c.maxLineBytes,
    skipServerInfo: true,
    clientName: CLIENT_NAME,
    signal: c.signal,
    ...(localAddress ? { localAddress } : {}),
  });
  const onStop = () => client.close();
  if (c.signal.aborted) {
    client.close();
    return client;
  }
  c.signal.addEventListener('abort', onStop, { once: true });
  client.once('close', () => c.signal.removeEventListener('abort', onStop));
  return client;
}

/** What a failed call or connection says the server did. */
export function pastOfError(err: unknown, timeoutMs: number): PastLimit {
  if (err instanceof ElectrumError) {
    if (err.code !== undefined) return { kind: 'error', code: err.code, message: err.message };
    if (err.category === 'timeout') return { kind: 'hang', afterMs: timeoutMs };
    if (err.category === 'disconnect') return /ECONNREFUSED/.test(err.message) ? { kind: 'refused' } : { kind: 'reset' };
    return { kind: 'error', code: null, message: err.message };
  }
  return { kind: 'error', code: null, message: String((err as Error)?.message ?? err) };
}

/** What a raw exchange that did not bring every awaited line says the server did. */
export function pastOfEnding(x: RawExchange, timeoutMs: number): PastLimit {
  switch (x.ending) {
    case 'timeout':
      return { kind: 'hang', afterMs: timeoutMs };
    case 'refused':
      return { kind: 'refused' };
    case 'too-long':
      return { kind: 'error', code: null, message: 'reply longer than --max-line-bytes' };
    default:
      return { kind: 'reset' };
  }
}

/** The JSON-RPC error of a reply object, as the server sent it; null when it is none. */
export function replyError(reply: unknown): PastLimit | null {
  const e = (reply as { error?: { code?: unknown; message?: unknown } | null } | null)?.error;
  if (e === undefined || e === null) return null;
  return { kind: 'error', code: typeof e.code === 'number' ? e.code : null, message: typeof e.message === 'string' ? e.message : JSON.stringify(e) };
}

/** A fresh connection from `localAddress` answers server.ping. */
export async function servesNormally(c: ProbeContext, localAddress: string | undefined): Promise<boolean> {
  const x = await rawExchange({
    host: c.host,
    port: c.port,
    localAddress,
    writes: [VERSION_LINE, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.ping', params: [] }) + '\n'],
    replies: 2,
    timeoutMs: Math.min(c.timeoutMs, 2000),
    maxLineBytes: 1 << 16,
    signal: c.signal,
  });
  return x.ending === 'replied' && x.lines.every((l) => parses(l) && replyError(JSON.parse(l)) === null);
}

/**
 * From now until a fresh connection is served normally again, in ms; null when it was not within
 * `withinMs` (or the probe was stopped).
 */
export async function recoveryMs(c: ProbeContext, localAddress: string | undefined, withinMs: number): Promise<number | null> {
  const started = performance.now();
  while (!c.signal.aborted && performance.now() - started < withinMs) {
    if (await servesNormally(c, localAddress)) return Math.round(performance.now() - started);
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

export function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
