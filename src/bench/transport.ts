/**
 * What the runner measures through, whatever the transport: a pool that lends a caller of the three
 * Electrum questions, and a follower of the server's tip. The Electrum protocol's are
 * src/electrum/; Esplora's REST API's are src/esplora/. The profile says which a target uses.
 */
import type { CallOutcome, ServerInfo } from '../electrum/client';
import { ElectrumPool, type PoolStats } from '../electrum/pool';
import { EsploraRestPool, RestTipFollower } from '../esplora/rest-pool';
import { PROFILES } from '../servers/profiles';
import { targetUrl, type ServerTarget } from '../core/targets';
import { HandshakeSilence } from '../electrum/errors';
import { TipFollower } from '../electrum/tip-follower';

export interface Caller {
  call(rpc: string, params: unknown[], timeoutMs?: number): Promise<CallOutcome & { requests?: number }>;
}

export interface MeasuringPool {
  server: ServerInfo | undefined;
  start(): Promise<ServerInfo>;
  use<T>(fn: (caller: Caller) => Promise<T>): Promise<T>;
  close(): Promise<void>;
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
}

export function openPool(t: ServerTarget, o: TransportOptions): MeasuringPool {
  const address = { host: t.host, port: t.port, tls: t.tls, tlsInsecure: o.tlsInsecure, ca: o.ca, timeoutMs: o.timeoutMs };
  if (PROFILES[t.profile].transport === 'esplora-rest') return new EsploraRestPool({ ...address, maxSockets: o.concurrency, measureLoop: true });
  return new ElectrumPool({ ...address, maxLineBytes: o.maxLineBytes, max: o.concurrency, measureLoop: true, clientName: o.clientName });
}

/** The one line for a server that failed before measuring: "unreachable" only when it never connected. */
export function startFailure(t: ServerTarget, err: unknown): string {
  const where = `server ${t.name} (${targetUrl(t)})`;
  return err instanceof HandshakeSilence ? `${where} ${err.message}` : `${where} is unreachable: ${(err as Error).message}`;
}

export function followTip(t: ServerTarget, o: TransportOptions): Promise<Tip> {
  const address = { host: t.host, port: t.port, tls: t.tls, tlsInsecure: o.tlsInsecure, ca: o.ca, timeoutMs: o.timeoutMs };
  if (PROFILES[t.profile].transport === 'esplora-rest') return RestTipFollower.start({ ...address, maxSockets: 1 });
  return TipFollower.start({ ...address, signal: o.signal });
}
