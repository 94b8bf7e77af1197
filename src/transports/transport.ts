/**
 * What a transport is to the stages that measure through it: its one set of connections to a
 * server (connections.ts), opened either to lend a caller of the three Electrum questions to one
 * caller at a time (the bench: `openPool`) or to carry pipelined requests (load:
 * `openConnections`), and a follower of the server's tip. One file per transport fills this in
 * (electrum.ts, esplora-rest.ts); registry.ts says which a target uses.
 */
import type { CallOutcome, ServerInfo } from '../electrum/client';
import { targetUrl, type ServerTarget } from '../servers/targets';
import type { TRANSPORT_LABELS, TransportName, UrlScheme } from '../servers/profiles';
import { HandshakeSilence } from '../electrum/errors';
import type { LoadConnections, PoolStats } from './connections';

export interface Caller {
  call(rpc: string, params: unknown[], timeoutMs?: number): Promise<CallOutcome & { requests?: number }>;
}

/** A transport's connection set as the bench uses it: each connection lent to one caller at a time. */
export interface MeasuringPool {
  server: ServerInfo | undefined;
  start(): Promise<ServerInfo>;
  use<T>(fn: (caller: Caller) => Promise<T>): Promise<T>;
  /** Cuts short every call in flight and every caller waiting; `stats` are final after it. */
  close(): void;
  readonly stats: PoolStats;
  readonly down: boolean;
}

export interface Tip {
  height: number | null;
  close(): void;
}

export interface TransportOptions {
  timeoutMs: number;
  maxLineBytes: number;
  tlsInsecure: boolean;
  ca?: Buffer | string;
  concurrency: number;
  clientName: string;
  signal?: AbortSignal;
  /** The first connection looks at how the server sends its replies (client.ts probeReplyHold). */
  probeReplyHold?: boolean;
}

export interface ConnectionOptions {
  connections: number;
  pipeline: number;
  timeoutMs: number;
  maxLineBytes: number;
  tlsInsecure: boolean;
  ca?: Buffer;
  sourceAddresses: string[];
}

export interface Transport {
  /** How the report's tables name it ("via"). */
  label: (typeof TRANSPORT_LABELS)[TransportName];
  scheme: UrlScheme;
  /** Wallet workloads and the check of block 0 against the dataset's chain need the protocol itself. */
  speaksElectrum: boolean;
  /** Whether its load connections can be bound to --source-addresses. */
  bindsSourceAddresses: boolean;
  openPool(t: ServerTarget, o: TransportOptions): MeasuringPool;
  followTip(t: ServerTarget, o: TransportOptions): Promise<Tip>;
  openConnections(t: ServerTarget, o: ConnectionOptions): LoadConnections;
}

/** Where and how securely to connect, which every transport's clients take alike. */
export function socketOptions(t: ServerTarget, o: { tlsInsecure: boolean; ca?: Buffer | string; timeoutMs: number }) {
  return { host: t.host, port: t.port, tls: t.tls, websocket: t.websocket, tlsInsecure: o.tlsInsecure, ca: o.ca, timeoutMs: o.timeoutMs };
}

/** The one line for a server that failed before measuring: "unreachable" only when it never connected. */
export function startFailure(t: ServerTarget, err: unknown): string {
  const where = `server ${t.name} (${targetUrl(t)})`;
  return err instanceof HandshakeSilence ? `${where} ${err.message}` : `${where} is unreachable: ${(err as Error).message}`;
}
