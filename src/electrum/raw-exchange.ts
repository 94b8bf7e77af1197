/**
 * Bytes written as they are, on a connection of their own, and the reply lines that come back:
 * what `limits` needs where our client would not send it (a request line padded to a size, a batch
 * as one line) and must see how the server ends the exchange — a reply, a close, a reset, silence
 * or no connection at all. Plain TCP only.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface RawExchangeOptions {
  host: string;
  port: number;
  localAddress?: string;
  /** Written in order, each as given (a line carries its own newline). */
  writes: ReadonlyArray<string | Buffer>;
  /** Reply lines awaited before the exchange ends. */
  replies: number;
  timeoutMs: number;
  /** A reply line longer than this ends the exchange as `too-long` (the bytes are not kept). */
  maxLineBytes: number;
  signal?: AbortSignal;
}

/**
 * How the exchange ended. `replied`: every awaited line came; `closed`: the server ended the
 * connection (FIN) first; `reset`: it reset it (or the write failed on it); `timeout`: silence;
 * `refused`: the connection was not accepted; `aborted`: the caller's signal.
 */
export type RawEnding = 'replied' | 'closed' | 'reset' | 'timeout' | 'refused' | 'too-long' | 'aborted';

export interface RawExchange {
  ending: RawEnding;
  lines: string[];
  /** Bytes of each reply line, its newline included. */
  lineBytes: number[];
  /** The socket error's code when it reset or refused. */
  errorCode?: string;
  ms: number;
}

export function rawExchange(o: RawExchangeOptions): Promise<RawExchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const lines: string[] = [];
    const lineBytes: number[] = [];
    let buffered: Buffer[] = [];
    let bufferedBytes = 0;
    let connected = false;
    let done = false;
    const socket = net.connect({ host: o.host, port: o.port, ...(o.localAddress ? { localAddress: o.localAddress } : {}) });
    const finish = (ending: RawEnding, errorCode?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve({ ending, lines, lineBytes, ...(errorCode ? { errorCode } : {}), ms: performance.now() - started });
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish('timeout'), o.timeoutMs);
    if (o.signal?.aborted) return finish('aborted');
    o.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('connect', () => {
      connected = true;
      for (const w of o.writes) socket.write(w);
    });
    socket.on('data', (chunk: Buffer) => {
      let at = 0;
      for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
        const piece = chunk.subarray(at, nl);
        const bytes = bufferedBytes + piece.length + 1;
        if (bytes > o.maxLineBytes) return finish('too-long');
        lines.push(Buffer.concat([...buffered, piece]).toString('utf8'));
        lineBytes.push(bytes);
        buffered = [];
        bufferedBytes = 0;
        at = nl + 1;
        if (lines.length >= o.replies) return finish('replied');
      }
      const rest = chunk.subarray(at);
      bufferedBytes += rest.length;
      if (bufferedBytes > o.maxLineBytes) return finish('too-long');
      if (rest.length) buffered.push(Buffer.from(rest));
    });
    socket.on('end', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('error', (err: NodeJS.ErrnoException) => finish(connected ? 'reset' : 'refused', err.code));
  });
}
