/**
 * Our Electrum client: newline-delimited JSON-RPC 2.0 over TCP or TLS, or one message per frame
 * over WebSocket (websocket-wire.ts).
 *
 * Why our own: the npm `electrum-client` is abandoned, and a benchmark needs things it never had —
 * a timeout on every call whose late reply can never resolve another call, a bounded line size,
 * per-call latency taken with `process.hrtime.bigint()` and the reply's size in bytes.
 */
import { formatServerUrl } from '../core/server-address';
import type { ObservedReplies } from '../core/observed-replies';
import { socketArrival } from '../core/socket-arrival';
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { EventEmitter } from 'node:events';
import { LineDecoder, LineTooLongError } from './framing';
import { ElectrumError, HandshakeSilence } from './errors';
import { PendingTable } from './pending-table';
import { Outbox } from './outbox';
import { PaddedWrites } from './padded-writes';
import type WebSocket from 'ws';
import { MESSAGE_TOO_LONG, openWebSocket, sendLines } from './websocket-wire';

export const DEFAULT_TIMEOUT_MS = 30_000;
const SPACE = 0x20;
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Protocol range we negotiate (spec: server.version, "protocol_version" may be [min, max]). */
export const PROTOCOL_MIN = '1.4';
export const PROTOCOL_MAX = '1.6';

export interface ClientOptions {
  host: string;
  port: number;
  tls?: boolean;
  /** Over WebSocket (ws://, or wss:// with `tls`): each message a frame, and `maxLineBytes` the largest frame taken. */
  websocket?: boolean;
  /** Accept any certificate (self-signed lab servers). Must be asked for explicitly. */
  tlsInsecure?: boolean;
  /** Extra CA certificate(s), PEM: trusted in addition to Node's bundled root CAs, never instead. */
  ca?: string | Buffer;
  /** Aborting cuts short a connect or handshake still pending (a stop must not wait for them). */
  signal?: AbortSignal;
  /** Local (source) address to connect from, e.g. 127.0.0.2 to look like another client to per-IP limits. */
  localAddress?: string;
  /**
   * Do not parse large results (the load engine needs only the reply's id and size): a line of
   * tens of kB takes a millisecond to parse, in which requests due go out late. Such a reply
   * resolves with `result: undefined`.
   */
  skipLargeResults?: boolean;
  timeoutMs?: number;
  connectTimeoutMs?: number;
  maxLineBytes?: number;
  /** Send server.ping after this long without traffic; 0 disables. */
  keepaliveMs?: number;
  /**
   * Also report, per call, how long our own event loop was busy between the write and the reply's
   * arrival (CallOutcome.loopBusyMs): time in which a reply that had arrived would have waited.
   */
  measureLoop?: boolean;
  clientName?: string;
  /**
   * Called every few reply lines of a chunk and after it. The load engine sends what fell due
   * meanwhile: a chunk can hold thousands of replies, and handling them all first would hold
   * back every request due in that time.
   */
  betweenReplies?: () => void;
  /** Skip server.features / server.banner after the handshake (the pool's fast path). */
  skipServerInfo?: boolean;
  /** After the handshake, look at how the server sends its replies (probeReplyHold): the one look a run takes, before it. */
  probeReplyHold?: boolean;
  /** What server.version asks for: a [min, max] range (default 1.4–1.6) or one version. */
  protocolVersion?: string | [string, string];
  /**
   * 'electrum-wallet': write as the Electrum wallet's session does (aiorpcx under its padded
   * transport): ids from 0, no params member when there are none, and every write held and padded
   * as padded-writes.ts says. Calls only; the load engine's queue() and batches keep our own form.
   */
  wire?: 'electrum-wallet';
}

export interface ServerInfo {
  software: string;
  protocol: string;
  banner?: string;
  features?: Record<string, unknown>;
  /** Over a raw socket, with the courtesy calls: whether replies came padded and held (probeReplyHold). */
  replies?: ObservedReplies;
}

/** What one call cost: the answer plus what a benchmark records about it. */
export interface CallOutcome<T = unknown> {
  result: T;
  latencyNs: bigint;
  responseBytes: number;
  /** With `measureLoop`: ms our event loop was busy between the write and the reply's arrival. */
  loopBusyMs?: number;
}

export type BatchItem<T = unknown> = { ok: true; result: T } | { ok: false; error: ElectrumError };

export interface BatchOutcome<T = unknown> {
  items: BatchItem<T>[];
  latencyNs: bigint;
  responseBytes: number;
}

/**
 * A call awaiting its reply. The client keeps its deadline and tells it how it ended; a promise's
 * call wraps its resolvers in one, the load engine passes its own per-request record (no promise,
 * no closure per call).
 */
export interface PendingCall {
  /** The JSON-RPC method, for messages. */
  readonly rpc: string;
  deadline: number; // Date.now() value after which the call has timed out
  timeoutMs: number;
  /** The reply line was complete at `endNs` (hrtime), `bytes` long with its newline. */
  replied(result: unknown, endNs: bigint, bytes: number, activeAtEnd: number | undefined): void;
  failed(err: ElectrumError): void;
}

/** A call()'s pending entry: settles its promise. */
class PromisedCall implements PendingCall {
  deadline = 0;
  timeoutMs = 0;
  startedNs = 0n;
  /** The loop's cumulative active ms at the write (with `measureLoop`). */
  activeAtStart: number | undefined;

  constructor(
    readonly rpc: string,
    private readonly resolve: (outcome: CallOutcome) => void,
    private readonly reject: (e: ElectrumError) => void,
  ) {}

  replied(result: unknown, endNs: bigint, bytes: number, activeAtEnd: number | undefined): void {
    const loopBusyMs = activeAtEnd !== undefined && this.activeAtStart !== undefined ? activeAtEnd - this.activeAtStart : undefined;
    this.resolve({ result, latencyNs: endNs - this.startedNs, responseBytes: bytes, loopBusyMs });
  }

  failed(err: ElectrumError): void {
    this.reject(err);
  }
}

interface RpcMessage {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string } | null;
}

export class ElectrumClient extends EventEmitter {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  server: ServerInfo = { software: '', protocol: '' };
  /** Replies that arrived after their call had timed out: dropped, counted. */
  lateReplies = 0;
  timeouts = 0;
  /** What the server sent so far, to say what it did when the handshake fails. */
  private bytesReceived = 0;
  private linesReceived = 0;
  /** Reply lines that ended in spaces before their closing bracket: ElectrumX's padding (probeReplyHold). */
  private paddedLines = 0;

  private socket!: net.Socket;
  /** With `websocket`: the connection, instead of `socket`. */
  private ws: WebSocket | undefined;
  private decoder: LineDecoder;
  private readonly pending = new PendingTable<PendingCall>();
  /** Queued calls, encoded, written together by flush(). */
  private readonly outbox = new Outbox();
  /** Ids whose caller gave up; their replies must never resolve anything. */
  private readonly abandoned = new Set<number>();
  private nextId: number;
  /** With `wire: 'electrum-wallet'`: the wallet's send buffer, through which every call is written. */
  private readonly padded: PaddedWrites | undefined;
  private closed = false;
  private closeReason: ElectrumError | undefined;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweepAt: number | undefined;
  /** When the first call queued since the last flush was queued (epoch ms). */
  private queuedAtMs: number | undefined;
  private lastTraffic = Date.now();

  private constructor(private readonly opts: ClientOptions) {
    super();
    this.host = opts.host;
    this.port = opts.port;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.decoder = new LineDecoder(opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    const wallet = opts.wire === 'electrum-wallet';
    this.nextId = wallet ? 0 : 1;
    this.padded = wallet ? new PaddedWrites((bytes) => this.write(bytes)) : undefined;
  }

  /** Opens the connection and negotiates the protocol; rejects with a 'disconnect' error if unreachable. */
  static async connect(opts: ClientOptions): Promise<ElectrumClient> {
    const { signal } = opts;
    if (signal?.aborted) throw abortError(opts);
    const client = new ElectrumClient(opts);
    const onAbort = () => client.shutdown(abortError(opts));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await client.open();
      await client.handshake();
    } catch (err) {
      client.close();
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (!client.closed || opts.skipServerInfo) return client;
    // Some servers (Esplora's electrs) drop the connection on a method they lack, such as
    // server.features: the courtesy calls cost us that connection, so open one without them.
    const known = client.server;
    const again = await ElectrumClient.connect({ ...opts, skipServerInfo: true });
    again.server = { ...known, ...again.server };
    if (opts.probeReplyHold && !opts.websocket) again.server.replies = await again.probeReplyHold();
    return again;
  }

  get label(): string {
    return formatServerUrl({ host: this.host, port: this.port, tls: !!this.opts.tls, websocket: this.opts.websocket }, 'tcp');
  }

  /** False once the connection closed or a call on it timed out (its stream may be out of step). */
  get usable(): boolean {
    return !this.closed && this.timeouts === 0;
  }

  /** Calls given up on whose replies may still arrive (and would be counted as late). */
  get awaitingLateReplies(): boolean {
    return !this.closed && this.abandoned.size > 0;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  async request<T = unknown>(method: string, params: unknown[] = [], timeoutMs?: number): Promise<T> {
    return (await this.call<T>(method, params, timeoutMs)).result;
  }

  /** One call, timed from the write to the arrival of its complete reply line. */
  call<T = unknown>(method: string, params: unknown[] = [], timeoutMs = this.timeoutMs): Promise<CallOutcome<T>> {
    if (this.closed) return Promise.reject(this.closeReason ?? new ElectrumError('disconnect', `${this.label} is closed`));
    const id = this.nextId++;
    if (this.padded) return this.paddedCall<T>(id, method, params, timeoutMs);
    const line = JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
    const deadline = this.deadlineIn(timeoutMs);
    // One promise per call, settled straight from the reply, and no timer of its own.
    return new Promise<CallOutcome<T>>((resolve, reject) => {
      const p = new PromisedCall(method, resolve as (outcome: CallOutcome) => void, reject);
      p.deadline = deadline;
      p.timeoutMs = timeoutMs;
      this.pending.set(id, p);
      p.startedNs = process.hrtime.bigint();
      this.write(line);
      // After the write: no reply can arrive before it, so only what the loop does from here on counts.
      if (this.opts.measureLoop) p.activeAtStart = performance.eventLoopUtilization().active;
    });
  }

  /**
   * A call in the Electrum wallet's form, through its send buffer. Its latency and its timeout run
   * from when it goes out, not from when it was queued: a second in our own buffer is no server's
   * delay, and must never count as the server's timeout.
   */
  private paddedCall<T>(id: number, method: string, params: unknown[], timeoutMs: number): Promise<CallOutcome<T>> {
    return new Promise<CallOutcome<T>>((resolve, reject) => {
      const p = new PromisedCall(method, resolve as (outcome: CallOutcome) => void, reject);
      p.deadline = Infinity;
      p.timeoutMs = timeoutMs;
      this.pending.set(id, p);
      this.padded!.push(walletRequestLine(id, method, params), () => {
        p.deadline = this.deadlineIn(timeoutMs);
        p.startedNs = process.hrtime.bigint();
        if (this.opts.measureLoop) p.activeAtStart = performance.eventLoopUtilization().active;
      });
    });
  }

  /**
   * Queues a call with one string parameter (every scripthash method) for the next flush(), which
   * writes every queued call at once: the load engine's path, where a write per call would cost
   * more than everything else per call together. Its deadline runs from now.
   */
  queue(method: string, param: string, call: PendingCall, timeoutMs = this.timeoutMs): void {
    if (this.closed) return call.failed(this.closeReason ?? new ElectrumError('disconnect', `${this.label} is closed`));
    const id = this.nextId++;
    // One clock reading for the calls of a flush: they go out together, within µs.
    this.queuedAtMs ??= Date.now();
    call.deadline = this.deadlineIn(timeoutMs, this.queuedAtMs);
    call.timeoutMs = timeoutMs;
    this.pending.set(id, call);
    this.outbox.append(id, method, param);
  }

  /** Writes the queued calls; returns when (hrtime ns, just before the write), or null if none was queued. */
  flush(): bigint | null {
    this.queuedAtMs = undefined;
    const bytes = this.outbox.take();
    if (bytes === null) return null;
    const at = process.hrtime.bigint();
    this.write(bytes);
    return at;
  }

  /**
   * Several calls in one JSON array (spec: JSON-RPC batch), or with `framing` 'lines' as that many
   * request lines written at once (as the electrum-client crate batches, which servers that refuse
   * arrays, such as Esplora's electrs, serve). The caller splits to the server's batch cap; one
   * timeout covers the whole batch. Each item succeeds or fails on its own.
   */
  async batch<T = unknown>(calls: Array<{ method: string; params?: unknown[] }>, timeoutMs = this.timeoutMs, framing: 'array' | 'lines' = 'array'): Promise<BatchOutcome<T>> {
    if (calls.length === 0) return { items: [], latencyNs: 0n, responseBytes: 0 };
    if (this.closed) throw this.closeReason ?? new ElectrumError('disconnect', `${this.label} is closed`);
    const ids = calls.map(() => this.nextId++);
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params ?? [] }));
    const startedNs = process.hrtime.bigint();
    const deadline = this.deadlineIn(timeoutMs);
    const replies = ids.map(
      (id, i) =>
        new Promise<CallOutcome>((resolve, reject) => {
          if (this.closed) reject(this.closeReason ?? new ElectrumError('disconnect', `${this.label} is closed`));
          else {
            const p = new PromisedCall(calls[i].method, resolve, reject);
            p.deadline = deadline;
            p.timeoutMs = timeoutMs;
            p.startedNs = startedNs;
            this.pending.set(id, p);
          }
        }),
    );
    this.write(framing === 'array' ? JSON.stringify(body) + '\n' : body.map((b) => JSON.stringify(b) + '\n').join(''));
    const settled = await Promise.allSettled(replies);
    let latencyNs = 0n;
    let bytes = 0;
    const items = settled.map((s): BatchItem<T> => {
      if (s.status === 'fulfilled') {
        if (s.value.latencyNs > latencyNs) latencyNs = s.value.latencyNs;
        // One array line: every item reports its size; lines: each its own.
        bytes = framing === 'array' ? Math.max(bytes, s.value.responseBytes) : bytes + s.value.responseBytes;
        return { ok: true, result: s.value.result as T };
      }
      return { ok: false, error: s.reason as ElectrumError };
    });
    if (latencyNs === 0n) latencyNs = process.hrtime.bigint() - startedNs;
    return { items, latencyNs, responseBytes: bytes };
  }

  close(): void {
    this.shutdown(new ElectrumError('disconnect', 'client closed the connection'));
  }

  // ---- internals ----

  private open(): Promise<void> {
    const connectTimeoutMs = this.opts.connectTimeoutMs ?? Math.min(this.timeoutMs, 10_000);
    return new Promise((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        cleanup();
        reject(new ElectrumError('disconnect', `cannot connect to ${this.label}: ${err.code ?? ''} ${err.message}`.trim()));
      };
      const timer = setTimeout(() => {
        this.destroyConnection();
        cleanup();
        reject(new ElectrumError('timeout', `cannot connect to ${this.label}: no answer within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      const onConnect = () => {
        cleanup();
        this.attach();
        resolve();
      };
      // shutdown() (an abort, or close()) while the connect is pending: fail it now, not at its timeout.
      const onShutdown = (reason: ElectrumError) => {
        cleanup();
        reject(reason);
      };
      const cleanup = () => {
        clearTimeout(timer);
        (this.ws ?? this.socket).off('error', onError);
        this.off('close', onShutdown);
      };
      this.once('close', onShutdown);
      if (this.opts.websocket) {
        this.ws = openWebSocket({
          host: this.host,
          port: this.port,
          tls: !!this.opts.tls,
          tlsInsecure: !!this.opts.tlsInsecure,
          ca: trustedCertificates(this.opts.ca),
          localAddress: this.opts.localAddress,
          maxMessageBytes: this.opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
          measureLoop: !!this.opts.measureLoop,
        });
        this.ws.once('open', onConnect);
        this.ws.once('error', onError);
        // After onError, which says the connect failed; and once it is gone, an error (a message
        // over the cap, a connect cut short by a stop) must still be heard: `ws` throws one nobody hears.
        this.ws.on('error', (err: NodeJS.ErrnoException) => this.shutdown(this.webSocketError(err)));
        return;
      }
      if (this.opts.tls) {
        this.socket = tls.connect({
          host: this.host,
          port: this.port,
          // tls.connect hands its options to net.connect, which takes a source address.
          ...({ localAddress: this.opts.localAddress } as object),
          servername: net.isIP(this.host) ? undefined : this.host,
          rejectUnauthorized: !this.opts.tlsInsecure,
          ca: trustedCertificates(this.opts.ca),
          // tls.connect reads into onread's buffer too (nodejs/node#35753); @types/node leaves it out of its options.
          ...({ onread: this.reads() } as object),
        });
        this.socket.once('secureConnect', onConnect);
      } else {
        this.socket = net.connect({ host: this.host, port: this.port, localAddress: this.opts.localAddress, onread: this.reads() });
        this.socket.once('connect', onConnect);
      }
      this.socket.once('error', onError);
    });
  }

  /** The socket's reads, each into the shared READ_BUFFER and decoded (what it leaves unfinished copied) at once. */
  private reads(): net.OnReadOpts {
    return {
      buffer: READ_BUFFER,
      callback: (bytes: number) => {
        this.onData(READ_BUFFER.subarray(0, bytes));
        return true;
      },
    };
  }

  private attach(): void {
    if (this.ws) {
      this.ws.on('message', (data: Buffer) => this.onFrame(data));
      this.ws.on('close', () => this.shutdown(new ElectrumError('disconnect', `${this.label} closed the connection`)));
    } else {
      this.socket.setNoDelay(true);
      this.socket.on('error', (err: NodeJS.ErrnoException) =>
        this.shutdown(new ElectrumError('disconnect', `${this.label}: ${err.code ?? ''} ${err.message}`.trim())),
      );
      this.socket.on('close', () => this.shutdown(new ElectrumError('disconnect', `${this.label} closed the connection`)));
    }
    const every = this.opts.keepaliveMs ?? 60_000;
    if (every > 0) {
      this.keepaliveTimer = setInterval(() => this.keepalive(every), Math.max(1000, Math.floor(every / 2)));
      this.keepaliveTimer.unref();
    }
  }

  private async handshake(): Promise<void> {
    const name = this.opts.clientName ?? 'electrum-bench';
    let answer: unknown;
    try {
      answer = await this.request<unknown>('server.version', [name, this.opts.protocolVersion ?? [PROTOCOL_MIN, PROTOCOL_MAX]]);
    } catch (err) {
      if (err instanceof ElectrumError && err.category === 'timeout') throw new HandshakeSilence(this.handshakeSilence());
      throw err;
    }
    if (!Array.isArray(answer) || typeof answer[0] !== 'string' || typeof answer[1] !== 'string') {
      throw new ElectrumError('protocol', `${this.label}: unexpected server.version answer ${JSON.stringify(answer)}`);
    }
    this.server = { software: answer[0], protocol: answer[1] };
    if (this.opts.skipServerInfo) return;
    // Both are optional courtesy calls: a server lacking them is still benchmarkable.
    try {
      this.server.features = await this.request<Record<string, unknown>>('server.features');
    } catch {
      /* not offered */
    }
    try {
      this.server.banner = await this.request<string>('server.banner');
    } catch {
      /* not offered */
    }
    if (this.opts.probeReplyHold && !this.opts.websocket && !this.closed) this.server.replies = await this.probeReplyHold();
  }

  /**
   * ElectrumX from 1.18 pads every reply on a raw socket with spaces before its closing bracket, to
   * a power of two of at least 1 KiB, and once a session has been sent 1 KiB it holds a reply under
   * 1 KiB until 1 s after its previous write, for more to pad with (electrumx/server/transport.py;
   * the constant is not a setting, an operator may have patched it). The handshake's replies show
   * the padding. Where they are padded, a reply over 1 KiB (eight headers) spends that budget and a
   * ping right after it is the small reply the hold would delay: its round trip says whether the
   * run's latencies contain the hold. Two calls, only on a server that pads, and only on the one
   * connection asked to look (`probeReplyHold`: runs/reachable.ts, before the run).
   */
  private async probeReplyHold(): Promise<ObservedReplies> {
    if (this.paddedLines === 0) return { padded: false, smallReplyMs: null };
    try {
      await this.request('blockchain.block.headers', [0, 8]);
      const from = process.hrtime.bigint();
      await this.request('server.ping');
      return { padded: true, smallReplyMs: Number(process.hrtime.bigint() - from) / 1e6 };
    } catch {
      return { padded: true, smallReplyMs: null };
    }
  }

  /** What a server that accepted the connection did instead of answering server.version. */
  private handshakeSilence(): string {
    const within = `within ${this.timeoutMs >= 1000 ? `${+(this.timeoutMs / 1000).toFixed(1)} s` : `${this.timeoutMs} ms`}`;
    if (this.bytesReceived === 0) return `connected, but did not answer server.version ${within}`;
    if (this.linesReceived === 0) return `connected, but sent ${this.bytesReceived} bytes and no end of line ${within} (not an Electrum server, or one that stalls mid-answer)`;
    return `connected, but sent no answer to server.version ${within} (${this.linesReceived} other lines)`;
  }

  private keepalive(every: number): void {
    if (this.closed || this.pending.size > 0 || Date.now() - this.lastTraffic < every) return;
    this.request('server.ping').catch(() => this.close());
  }

  /**
   * Timeouts use one timer per client, armed for the earliest deadline, instead of one per call:
   * a timer per call costs more than the rest of the client's per-call work together.
   */
  private deadlineIn(timeoutMs: number, nowMs = Date.now()): number {
    const deadline = nowMs + timeoutMs;
    if (this.sweepAt === undefined || deadline < this.sweepAt) this.armSweep(deadline);
    return deadline;
  }

  private armSweep(at: number): void {
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepAt = at;
    this.sweepTimer = setTimeout(() => this.sweep(), Math.max(0, at - Date.now()));
  }

  /** Gives up on calls past their deadline; their ids stay known so a late reply is only counted. */
  private sweep(): void {
    this.sweepTimer = undefined;
    this.sweepAt = undefined;
    const now = Date.now();
    let next = Infinity;
    for (const [id, p] of this.pending.entries()) {
      if (p.deadline > now) {
        next = Math.min(next, p.deadline);
        continue;
      }
      this.pending.delete(id);
      this.abandoned.add(id);
      this.timeouts++;
      p.failed(new ElectrumError('timeout', `${p.rpc}: no reply from ${this.label} within ${p.timeoutMs} ms`));
    }
    if (next !== Infinity) this.armSweep(next);
  }

  private write(line: string | Buffer): void {
    if (this.closed) return; // the caller's promise was already rejected
    this.lastTraffic = Date.now();
    if (this.ws) sendLines(this.ws, typeof line === 'string' ? line : line.toString('utf8'));
    else this.socket.write(line);
  }

  /** One WebSocket message: one reply (or batch, or notification), as a line is over TCP. */
  private onFrame(data: Buffer): void {
    // Its last chunk's arrival, before `ws` read the frame: where a line over TCP is timed.
    const arrival = socketArrival();
    const endNs = arrival?.ns ?? process.hrtime.bigint();
    const activeAtEnd = this.opts.measureLoop ? (arrival?.active ?? performance.eventLoopUtilization().active) : undefined;
    this.lastTraffic = Date.now();
    this.bytesReceived += data.length;
    this.onLine(data.toString('utf8'), data.length, endNs, activeAtEnd);
    this.opts.betweenReplies?.();
  }

  /** The ws package's errors: a message over the cap is the line cap's protocol error, as over TCP. */
  private webSocketError(err: NodeJS.ErrnoException): ElectrumError {
    if (err.code === MESSAGE_TOO_LONG) return new ElectrumError('protocol', `${this.label}: ${new LineTooLongError(this.opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES).message}`);
    return new ElectrumError('disconnect', `${this.label}: ${err.code ?? ''} ${err.message}`.trim());
  }

  private destroyConnection(): void {
    if (this.ws) this.ws.terminate();
    else this.socket?.destroy();
  }

  private onData(chunk: Buffer): void {
    const endNs = process.hrtime.bigint();
    // Read at the arrival, before any parsing: what the loop did until now may have delayed it.
    const activeAtEnd = this.opts.measureLoop ? performance.eventLoopUtilization().active : undefined;
    this.lastTraffic = Date.now();
    this.bytesReceived += chunk.length;
    let text: string;
    let ascii: boolean;
    try {
      ({ text, ascii } = this.decoder.pushText(chunk));
    } catch (err) {
      if (err instanceof LineTooLongError) return this.tooLong(err);
      throw err;
    }
    const between = this.opts.betweenReplies;
    const maxLineBytes = this.opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    let start = 0;
    let lines = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      if (this.closed) return;
      const line = text.slice(start, nl);
      start = nl + 1;
      const size = ascii ? line.length : Buffer.byteLength(line);
      if (size > maxLineBytes) return this.tooLong(new LineTooLongError(maxLineBytes));
      this.onLine(line, size + 1, endNs, activeAtEnd);
      if (between && ++lines % REPLIES_BETWEEN_CALLS === 0) between();
    }
    between?.();
  }

  private tooLong(err: LineTooLongError): void {
    this.shutdown(new ElectrumError('protocol', `${this.label}: ${err.message}`));
  }

  /** One line, `bytes` long with its newline. */
  private onLine(line: string, bytes: number, endNs: bigint, activeAtEnd?: number): void {
    this.linesReceived++;
    if (line.length === 0 || line === '\r') return;
    if (line.charCodeAt(line.length - 2) === SPACE) this.paddedLines++;
    if (this.opts.skipLargeResults && bytes > LARGE_LINE_BYTES) {
      const id = idOfLargeResult(line);
      if (id !== null) return this.onMessage({ id, result: undefined }, endNs, bytes, activeAtEnd);
    }
    let msg: RpcMessage | RpcMessage[];
    try {
      msg = JSON.parse(line);
    } catch {
      this.shutdown(new ElectrumError('protocol', `${this.label} sent a line that is not JSON: ${line.slice(0, 80)}`));
      return;
    }
    if (!Array.isArray(msg)) return this.onMessage(msg, endNs, bytes, activeAtEnd);
    for (const m of msg) {
      if (this.closed) return;
      this.onMessage(m, endNs, bytes, activeAtEnd);
    }
  }

  private onMessage(m: RpcMessage, endNs: bigint, bytes: number, activeAtEnd?: number): void {
    if (m === null || typeof m !== 'object') {
      this.shutdown(new ElectrumError('protocol', `${this.label} sent a JSON value that is not a message`));
      return;
    }
    if (m.id === undefined || m.id === null) {
      if (typeof m.method === 'string') {
        this.emit('notification', m.method, m.params);
        return;
      }
      // A null id is what a server sends for a request it could not parse at all.
      this.shutdown(new ElectrumError('protocol', `${this.label} sent an error without an id: ${m.error?.message ?? 'unknown'}`));
      return;
    }
    const id = m.id as number;
    const p = this.pending.get(id);
    if (!p) {
      if (this.abandoned.delete(id)) {
        this.lateReplies++;
        return;
      }
      // A reply to nothing we asked: the stream can no longer be trusted to pair answers.
      this.shutdown(new ElectrumError('protocol', `${this.label} answered unknown id ${JSON.stringify(m.id)}`));
      return;
    }
    this.pending.delete(id);
    if (m.error) {
      const code = typeof m.error.code === 'number' ? m.error.code : undefined;
      p.failed(new ElectrumError('server-error', m.error.message ?? JSON.stringify(m.error), code));
    } else if (!('result' in m)) {
      p.failed(new ElectrumError('protocol', `${this.label}: reply to ${p.rpc} has neither result nor error`));
    } else {
      p.replied(m.result, endNs, bytes, activeAtEnd);
    }
  }

  /** Closes the connection for `reason`: every pending call (and a pending connect) fails with it. */
  private shutdown(reason: ElectrumError): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    if (this.keepaliveTimer) clearInterval(this.keepaliveTimer);
    this.padded?.stop();
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.sweepAt = undefined;
    this.outbox.take();
    const failing = this.pending.entries();
    this.pending.clear();
    for (const [, p] of failing) p.failed(reason);
    this.destroyConnection();
    // A closed client may be kept a while (a retired connection, for its late replies): its unfinished line is not.
    this.decoder.clear();
    this.emit('close', reason);
  }
}

/** A request line as aiorpcx writes it: method before id, and no params member when there are none. */
function walletRequestLine(id: number, method: string, params: unknown[]): string {
  return JSON.stringify(params.length ? { jsonrpc: '2.0', method, id, params } : { jsonrpc: '2.0', method, id }) + '\n';
}

/**
 * Every connection reads into this one buffer (net's `onread`): a read is decoded, and the line it
 * leaves unfinished copied, before its callback returns, and no socket reads again before that.
 * A socket's own reads would each allocate 64 KiB, garbage once decoded: a long line's added a
 * third of the line cap to our peak memory before a collection freed them.
 */
const READ_BUFFER = Buffer.allocUnsafeSlow(64 * 1024);

/** How many reply lines of a chunk are handled between two calls of `betweenReplies`. */
const REPLIES_BETWEEN_CALLS = 32;

/** Lines from this size on are results worth not parsing (errors and notifications are small). */
const LARGE_LINE_BYTES = 8192;
const ID_AT_START = /^\s*\{\s*(?:"(?:jsonrpc)"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d+)\s*,/;
const ID_AT_END = /,\s*"id"\s*:\s*(\d+)$/;

/**
 * The id of a large single result line without parsing it: servers put `"id"` first (electrs) or
 * last (ElectrumX), outside the result. Null when the line is not plainly one result message (a
 * batch, an error, anything unusual): then it is parsed as usual.
 */
function idOfLargeResult(line: string): number | null {
  const head = line.slice(0, 128);
  // An error reply has "error" where a result reply has "result": require "result" in the head.
  if (head[0] !== '{' || !/"result"\s*:/.test(head)) return null;
  const start = ID_AT_START.exec(head);
  if (start) return Number(start[1]);
  // ElectrumX pads a reply with spaces before its closing brace: look before brace and padding.
  const isSpace = (c: string) => c === ' ' || c === '\r' || c === '\t';
  let end = line.length;
  while (end > 0 && isSpace(line[end - 1])) end--;
  if (line[end - 1] !== '}') return null;
  end--;
  while (end > 0 && isSpace(line[end - 1])) end--;
  const m = ID_AT_END.exec(line.slice(Math.max(0, end - 48), end));
  return m ? Number(m[1]) : null;
}

/**
 * What a TLS connection trusts: Node's bundled roots, plus the user's --ca if given. Node's `ca`
 * option replaces the bundled roots, and a user's --ca is meant to add one, not to distrust the rest.
 */
export function trustedCertificates(extra: string | Buffer | undefined): Array<string | Buffer> | undefined {
  return extra === undefined ? undefined : [...tls.rootCertificates, extra];
}

function abortError(o: ClientOptions): ElectrumError {
  return new ElectrumError('disconnect', `${formatServerUrl({ host: o.host, port: o.port, tls: !!o.tls, websocket: o.websocket }, 'tcp')}: connection attempt abandoned (stopping)`);
}
