/**
 * The load engine's sockets to Esplora's REST API: `--connections` keep-alive sockets, each with
 * up to `--pipeline` requests in flight (HTTP/1.1 pipelining through undici, answers in order),
 * picked round robin like the Electrum connection set. Measured on the lab's Esplora at 400/s
 * (docs/findings/2026-11-24-rest-on-undici.md), one pipelined socket per connection answered with a
 * lower p99 and less CPU than as many sockets with one request each. A refused or reset
 * connection takes its client out of service for a backoff (100 ms doubling to 1 s, as the
 * Electrum reconnector's), counted once per outage, so an unreachable server shows as disconnects at a bounded pace, never as a busy loop.
 */
import type { CallOutcome, PendingCall, ServerInfo } from '../electrum/client';
import { isElectrumError, toElectrumError } from '../electrum/errors';
import { backoffMs } from '../electrum/reconnector';
import { EsploraRestClient, type RestClientOptions } from '../esplora/rest-client';
import { ESPLORA_REST_SOFTWARE } from '../esplora/rest-pool';
import { SlotRing, type LoadCaller, type LoadConnections } from './connections';


class RestSlotClient implements LoadCaller {
  usable = true;
  /** Refusals in a row: the next backoff is the Electrum reconnector's for that many. */
  private failures = 0;
  private queued: Array<{ rpc: string; scripthash: string; call: PendingCall; timeoutMs: number }> = [];

  constructor(
    private readonly rest: EsploraRestClient,
    readonly server: ServerInfo,
    private readonly onRefused: () => void,
  ) {}

  /** Opens a socket ahead of the load (asks the tip), so the first requests do not pay for it. */
  async warm(): Promise<void> {
    await this.rest.tipHeight();
  }

  get lateReplies(): number {
    return this.rest.lateReplies;
  }

  queue(rpc: string, scripthash: string, call: PendingCall, timeoutMs: number): void {
    this.queued.push({ rpc, scripthash, call, timeoutMs });
  }

  /** Each queued call becomes its own request, all dispatched now (undici writes them in order on the socket). */
  flush(): bigint | null {
    if (this.queued.length === 0) return null;
    const at = process.hrtime.bigint();
    for (const { rpc, scripthash, call, timeoutMs } of this.queued.splice(0)) {
      call.timeoutMs = timeoutMs;
      this.call(rpc, [scripthash], timeoutMs).then(
        (o) => call.replied(o.result, at + o.latencyNs, o.responseBytes, undefined),
        (err) => call.failed(toElectrumError(err)),
      );
    }
    return at;
  }

  private async call(rpc: string, params: unknown[], timeoutMs?: number): Promise<CallOutcome> {
    try {
      const out = await this.rest.call(rpc, params, timeoutMs);
      this.failures = 0;
      return out;
    } catch (err) {
      if (isElectrumError(err) && err.category === 'disconnect' && this.usable) {
        this.usable = false;
        this.onRefused();
        setTimeout(() => (this.usable = true), backoffMs(++this.failures)).unref();
      }
      throw err;
    }
  }

  close(): void {
    this.rest.close();
  }
}

export class RestConnectionSet extends SlotRing<RestSlotClient> implements LoadConnections {
  refused = 0;
  firstRefusedAtMs: number | null = null;

  constructor(
    private readonly opts: Omit<RestClientOptions, 'maxSockets'>,
    count: number,
    pipeline: number,
  ) {
    super(count, pipeline);
  }

  /**
   * Opens the clients, each asking the tip once: that opens its socket before the schedule starts,
   * as the Electrum connections are (so the first requests of the run do not pay for a TCP
   * handshake the later ones do not), and an unreachable or non-Esplora server fails here, before
   * any load.
   */
  async open(): Promise<void> {
    const server: ServerInfo = { software: ESPLORA_REST_SOFTWARE, protocol: 'http/1.1' };
    const refused = () => {
      this.refused++;
      this.firstRefusedAtMs ??= Date.now();
    };
    for (const slot of this.slots) slot.client = new RestSlotClient(new EsploraRestClient({ ...this.opts, maxSockets: 1, pipelining: this.pipeline }), server, refused);
    try {
      await Promise.all(this.slots.map((s) => s.client!.warm()));
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** A timed-out HTTP request leaves its socket to the client (counted late if it answers): nothing to replace. */
  replaceIfUnusable(): void {}

  lateReplies(): number {
    return this.slots.reduce((n, s) => n + (s.client?.lateReplies ?? 0), 0);
  }

  close(): void {
    for (const s of this.slots) s.client?.close();
  }
}
