/**
 * A recording proxy on loopback between an Electrum client and a server: it forwards every byte
 * both ways unchanged and logs each request the client sends — its method and params, how it was
 * framed (a line of its own, or an element of a JSON array), how many requests reached the proxy
 * in the same read (written together), and how many were in flight (sent, not yet answered) once
 * it was. Used to hold a workload to the real wallet it imitates (issue #20): sync the same wallet
 * through it with both, and compare what each sent.
 */
import net from 'node:net';
import { LineDecoder } from '../electrum/framing';

export interface WireRequest {
  /** Which client connection (0, 1, …, in the order they were accepted). */
  connection: number;
  method: string;
  params: unknown[];
  framing: 'line' | 'array';
  /** Requests written at once by the client (reads ending inside a line joined): a batch of lines, or one array. */
  together: number;
  /** Requests sent and not yet answered on this connection, this one included. */
  inFlight: number;
}

export class WireRecorder {
  readonly requests: WireRequest[] = [];
  private readonly sockets = new Set<net.Socket>();
  private connections = 0;

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

  /** What the recorder forgets between two clients' syncs. */
  clear(): void {
    this.requests.length = 0;
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
    const outstanding = new Set<string>();
    // The protocol's own framing; no line limit: the proxy records, the endpoints judge.
    const fromClient = new LineDecoder(Number.MAX_SAFE_INTEGER);
    const fromServer = new LineDecoder(Number.MAX_SAFE_INTEGER);
    // A write larger than a read (64 KiB) reaches us in several reads; one that ends inside a line
    // goes on in the next, so requests count as written together until a read ends at a line's end.
    let group: WireRequest[] = [];
    const closeGroup = () => {
      for (const r of group) r.together = group.length;
      group = [];
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      for (const line of fromClient.push(chunk)) {
        const { framing, messages } = messagesOf(line);
        for (const m of messages) {
          if (m.id !== undefined && m.id !== null) outstanding.add(JSON.stringify(m.id));
          const request: WireRequest = { connection, method: String(m.method), params: Array.isArray(m.params) ? m.params : [], framing, together: 0, inFlight: outstanding.size };
          group.push(request);
          this.requests.push(request);
        }
      }
      if (fromClient.buffered === 0) closeGroup();
    });
    // A connection that closed inside a line: what was read of that write still counts as one batch.
    client.on('close', closeGroup);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      for (const line of fromServer.push(chunk)) {
        for (const m of messagesOf(line).messages) if (m.id !== undefined && m.id !== null) outstanding.delete(JSON.stringify(m.id));
      }
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
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
  framings: Set<'line' | 'array'>;
  /** "method ×N" → how many times a batch of N of that method was written at once. */
  batches: Map<string, number>;
  maxInFlight: number;
}

export function wireProfile(requests: readonly WireRequest[]): WireProfile {
  const count = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
  const profile: WireProfile = { requests: new Map(), framings: new Set(), batches: new Map(), maxInFlight: 0 };
  for (const r of requests) {
    count(profile.requests, `${r.method} ${JSON.stringify(r.params)}`);
    profile.framings.add(r.framing);
    profile.maxInFlight = Math.max(profile.maxInFlight, r.inFlight);
  }
  // Each read's requests are consecutive in the log: a batch is counted once, at its first.
  for (let i = 0; i < requests.length; i += Math.max(1, requests[i].together)) count(profile.batches, `${requests[i].method} ×${requests[i].together}`);
  return profile;
}
