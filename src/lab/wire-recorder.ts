/**
 * A recording proxy on loopback between an Electrum client and a server: it forwards every byte
 * both ways unchanged and logs each request the client sends — its method and params, how it was
 * framed (a line of its own, or an element of a JSON array), how many requests reached the proxy
 * in the same read (written together), how many were in flight (sent, not yet answered) once it
 * was, and when it was read and answered. Used to hold a workload to the real wallet it imitates
 * (issue #20): sync the same wallet through it with both, compare what each sent, and time both
 * on the proxy's one clock.
 *
 * It can also hold new connections (`hold`/`release`): accepted, but nothing the client writes is
 * read until released, so a client whose process takes seconds to start and load a wallet can be
 * timed from the moment its requests are let through, as a workload is from its connect.
 */
import net from 'node:net';
import { LineDecoder } from '../electrum/framing';

export interface WireRequest {
  /** Which client connection (0, 1, …, in the order they were accepted). */
  connection: number;
  method: string;
  params: unknown[];
  framing: 'line' | 'array';
  /** It came in a write padded with spaces to a power of two of at least 1 KiB (as Electrum writes). */
  padded: boolean;
  /** Requests written at once by the client (reads ending inside a line joined): a batch of lines, or one array. */
  together: number;
  /** Which of its connection's writes it came in (0, 1, …). */
  write: number;
  /** Requests sent and not yet answered on this connection, this one included. */
  inFlight: number;
  /** When the proxy read it (process.hrtime.bigint()). */
  sentNs: bigint;
  /** When the proxy passed its reply on; undefined while none came. */
  answeredNs?: bigint;
}

export class WireRecorder {
  readonly requests: WireRequest[] = [];
  /** Per connection, when the proxy began passing its client's bytes on: its accept, or its release if held. */
  readonly servedFromNs = new Map<number, bigint>();
  private readonly sockets = new Set<net.Socket>();
  private connections = 0;
  private holding = false;
  private readonly held: Array<() => void> = [];

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Listens on 127.0.0.1 (a free port) and forwards every connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<WireRecorder> {
    let recorder!: WireRecorder;
    const server = net.createServer((client) => recorder.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    recorder = new WireRecorder(server, (server.address() as net.AddressInfo).port);
    return recorder;
  }

  /** Connections accepted so far: the next one gets this number. */
  get connectionCount(): number {
    return this.connections;
  }

  /** What the recorder forgets between two clients' syncs. */
  clear(): void {
    this.requests.length = 0;
  }

  /** Connections accepted from now on are held: their client's bytes stay unread until `release`. */
  hold(): void {
    this.holding = true;
  }

  /** Lets every held connection's bytes through, and stops holding new ones. */
  release(): void {
    this.holding = false;
    for (const go of this.held.splice(0)) go();
  }

  /**
   * A sync's time on the proxy's clock, in ms: from when its connection was served to the last
   * reply passed back (before `untilNs`, when given), keep-alive pings left out.
   */
  spanMs(connection: number, untilNs?: bigint): number {
    const from = this.servedFromNs.get(connection);
    if (from === undefined) throw new Error(`the recorder saw no connection ${connection}`);
    let last = from;
    for (const r of this.requests) {
      if (r.connection !== connection || r.method === 'server.ping' || r.answeredNs === undefined) continue;
      if (untilNs !== undefined && r.answeredNs > untilNs) continue;
      if (r.answeredNs > last) last = r.answeredNs;
    }
    return Number(last - from) / 1e6;
  }

  /**
   * A sync's span (as spanMs) split in two: the time with at least one request of the connection
   * in flight (the server's and the wire's), and the time with none (the client's own, between an
   * answer and its next write).
   */
  splitMs(connection: number): { inFlightMs: number; idleMs: number } {
    const from = this.servedFromNs.get(connection);
    if (from === undefined) throw new Error(`the recorder saw no connection ${connection}`);
    const edges: Array<[bigint, number]> = [];
    for (const r of this.requests) {
      if (r.connection !== connection || r.method === 'server.ping' || r.answeredNs === undefined) continue;
      edges.push([r.sentNs, 1], [r.answeredNs, -1]);
    }
    edges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let inFlight = 0n;
    let idle = 0n;
    let open = 0;
    let t = from;
    for (const [at, step] of edges) {
      if (open > 0) inFlight += at - t;
      else idle += at - t;
      t = at;
      open += step;
    }
    return { inFlightMs: Number(inFlight) / 1e6, idleMs: Number(idle) / 1e6 };
  }

  /**
   * Before each write of `method`'s requests, the client's own pause, in ms: from the last answer
   * its connection had to that write, when nothing was in flight (writes with a request still
   * out are left out).
   */
  pausesBeforeMs(method: string): number[] {
    const pauses: number[] = [];
    // Per connection, over its requests so far: the last one's write, the latest answer, and
    // whether one was never answered (then nothing after it follows a quiet moment).
    const seen = new Map<number, { write: number; lastAnswerNs: bigint; unanswered: boolean }>();
    for (const r of this.requests) {
      const c = seen.get(r.connection) ?? { write: -1, lastAnswerNs: 0n, unanswered: false };
      if (r.method === method && c.write >= 0 && c.write !== r.write && !c.unanswered && c.lastAnswerNs <= r.sentNs) {
        pauses.push(Number(r.sentNs - c.lastAnswerNs) / 1e6);
      }
      c.write = r.write;
      if (r.answeredNs === undefined) c.unanswered = true;
      else if (r.answeredNs > c.lastAnswerNs) c.lastAnswerNs = r.answeredNs;
      seen.set(r.connection, c);
    }
    return pauses;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, target: { host: string; port: number }): void {
    const connection = this.connections++;
    const upstream = net.connect(target);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    const outstanding = new Map<string, WireRequest>();
    // The protocol's own framing; no line limit: the proxy records, the endpoints judge.
    const fromClient = new LineDecoder(Number.MAX_SAFE_INTEGER);
    const fromServer = new LineDecoder(Number.MAX_SAFE_INTEGER);
    // A write larger than a read (64 KiB) reaches us in several reads; one that ends inside a line
    // goes on in the next, so requests count as written together until a read ends at a line's end.
    // A padding client (Electrum pads each write with spaces to a power of two of at least 1 KiB)
    // may have several writes in one read: its writes end where the bytes since the last end make
    // such a size.
    let group: WireRequest[] = [];
    let groupBytes = 0;
    let padded = false;
    let writes = 0;
    const closeGroup = () => {
      if (group.length > 0) writes++;
      for (const r of group) {
        r.together = group.length;
        r.padded = padded;
        r.write = writes - 1;
      }
      group = [];
      groupBytes = 0;
    };
    client.on('data', (chunk: Buffer) => {
      const sentNs = process.hrtime.bigint();
      upstream.write(chunk);
      for (const line of fromClient.push(chunk)) {
        const { framing, messages } = messagesOf(line);
        for (const m of messages) {
          const request: WireRequest = { connection, method: String(m.method), params: Array.isArray(m.params) ? m.params : [], framing, padded: false, together: 0, write: 0, inFlight: 0, sentNs };
          if (m.id !== undefined && m.id !== null) outstanding.set(JSON.stringify(m.id), request);
          request.inFlight = outstanding.size;
          group.push(request);
          this.requests.push(request);
        }
        padded ||= isPadded(line);
        groupBytes += line.length + 1;
        if (padded && isPaddedWriteSize(groupBytes)) closeGroup();
      }
      if (!padded && fromClient.buffered === 0) closeGroup();
    });
    // A connection that closed inside a line: what was read of that write still counts as one batch.
    client.on('close', closeGroup);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      const answeredNs = process.hrtime.bigint();
      for (const line of fromServer.push(chunk)) {
        for (const m of messagesOf(line).messages) {
          if (m.id === undefined || m.id === null) continue;
          const key = JSON.stringify(m.id);
          const request = outstanding.get(key);
          if (request) request.answeredNs = answeredNs;
          outstanding.delete(key);
        }
      }
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    // Listeners first, then the pause: a 'data' listener added later would set the socket flowing.
    const serve = () => this.servedFromNs.set(connection, process.hrtime.bigint());
    if (!this.holding) serve();
    else {
      client.pause();
      this.held.push(() => {
        serve();
        client.resume();
      });
    }
  }
}

/** Compact JSON never has white space before its closing bracket: padding does. */
function isPadded(line: Buffer): boolean {
  const last = line.length - 1;
  return last > 0 && (line[last] === 0x7d || line[last] === 0x5d) && line[last - 1] === 0x20;
}

/** A power of two of at least 1 KiB: the size of each of a padding client's writes. */
function isPaddedWriteSize(bytes: number): boolean {
  return bytes >= 1024 && (bytes & (bytes - 1)) === 0;
}

/**
 * The JSON-RPC messages of one line, and how they were framed: a line of its own, or the elements
 * of an array (none for a blank line). A line that is not JSON is kept as a message of its own
 * kind, never thrown.
 */
function messagesOf(line: Buffer): { framing: 'line' | 'array'; messages: Array<{ id?: unknown; method?: unknown; params?: unknown }> } {
  const text = line.toString('utf8');
  if (text.trim() === '') return { framing: 'line', messages: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { method: '(not JSON)', params: [text.slice(0, 200)] };
  }
  return Array.isArray(parsed) ? { framing: 'array', messages: parsed as Array<Record<string, unknown>> } : { framing: 'line', messages: [parsed as Record<string, unknown>] };
}

/** What a wallet sent, in the terms two clients are held to: the requests, their framing, batches and concurrency. */
export interface WireProfile {
  /** "method params" → how many times it was asked. */
  requests: Map<string, number>;
  /** 'line' or 'array', and ', padded' for a padding client's writes. */
  framings: Set<string>;
  /** "method ×N" → how many times a batch of N of that method was written at once. */
  batches: Map<string, number>;
  maxInFlight: number;
}

export function wireProfile(requests: readonly WireRequest[]): WireProfile {
  const count = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
  const profile: WireProfile = { requests: new Map(), framings: new Set(), batches: new Map(), maxInFlight: 0 };
  for (const r of requests) {
    count(profile.requests, `${r.method} ${JSON.stringify(r.params)}`);
    profile.framings.add(r.padded ? `${r.framing}, padded` : r.framing);
    profile.maxInFlight = Math.max(profile.maxInFlight, r.inFlight);
  }
  // Each read's requests are consecutive in the log: a batch is counted once, at its first.
  for (let i = 0; i < requests.length; i += Math.max(1, requests[i].together)) count(profile.batches, `${requests[i].method} ×${requests[i].together}`);
  return profile;
}
