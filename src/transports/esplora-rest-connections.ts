/**
 * The REST transport's connections to Esplora: slots of keep-alive sockets, each an undici client
 * of one socket. A load run sends up to `--pipeline` requests in flight on each (HTTP/1.1
 * pipelining, answers in order), picked round robin like the Electrum connection set; the bench
 * borrows them one caller at a time (`use`). Measured on the lab's Esplora at 400/s
 * (docs/findings/2026-11-24-rest-on-undici.md), one pipelined socket per connection answered with a
 * lower p99 and less CPU than as many sockets with one request each. A refused or reset
 * connection takes its client out of service for a backoff (100 ms doubling to 1 s, as the
 * Electrum reconnector's), counted once per outage, so an unreachable server shows as disconnects
 * at a bounded pace, never as a busy loop; callers waiting meanwhile fail with that news. A client
 * whose call timed out is replaced, as an Electrum connection is.
 */
import type { PendingCall, ServerInfo } from '../electrum/client';
import { ElectrumError, isElectrumError, toElectrumError } from '../electrum/errors';
import { backoffMs, type OutageRecord } from '../electrum/reconnector';
import { EsploraRestClient, LATE_GRACE_MS, type RestCallOutcome, type RestClientOptions } from '../esplora/rest-client';
import { formatServerUrl } from '../core/server-address';
import { SlotRing, type LoadCaller, type LoadConnections, type PoolStats } from './connections';

/** What a REST server reports of itself: its API has no version call, so the transport is its identity. */
const REST_SERVER: ServerInfo = { software: 'Esplora REST API', protocol: 'http/1.1' };

interface SlotEvents {
  /** A call found the server unreachable (refused, reset) while the client was in service. */
  refused(error: ElectrumError): void;
  /** The server answered (a result or an error of its own). */
  answered(): void;
  /** A client is back in service after its backoff. */
  usableAgain(): void;
  /** A load request ended (answered or failed): the driver may send what fell due meanwhile. */
  ended(): void;
}

class RestSlotClient implements LoadCaller {
  /** Out of service for a backoff after a refusal. */
  private backingOff = false;
  /**
   * A call on it timed out: its socket stays busy with the abandoned request until that is
   * answered or aborted (rest-client.ts), so nothing more is sent on it; the set replaces it.
   */
  timedOut = false;
  /** Refusals in a row: the next backoff is the Electrum reconnector's for that many. */
  private failures = 0;
  private queued: Array<{ rpc: string; scripthash: string; call: PendingCall; timeoutMs: number }> = [];

  constructor(
    readonly rest: EsploraRestClient,
    readonly server: ServerInfo,
    private readonly events: SlotEvents,
  ) {}

  get usable(): boolean {
    return !this.backingOff && !this.timedOut;
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
        (o) => {
          call.replied(o.result, at + o.queuedNs + o.latencyNs, o.responseBytes, undefined);
          this.events.ended();
        },
        (err) => {
          call.failed(toElectrumError(err));
          this.events.ended();
        },
      );
    }
    return at;
  }

  /** One Electrum method over REST (the bench's call, through use()). */
  async call(rpc: string, params: unknown[], timeoutMs?: number): Promise<RestCallOutcome> {
    try {
      const out = await this.rest.call(rpc, params, timeoutMs);
      this.failures = 0;
      this.events.answered();
      return out;
    } catch (err) {
      const e = toElectrumError(err);
      if (e.category === 'timeout') this.timedOut = true;
      if (!(isElectrumError(err) && err.category === 'disconnect')) this.events.answered();
      else if (!this.backingOff) {
        this.backingOff = true;
        this.events.refused(e);
        setTimeout(() => {
          this.backingOff = false;
          this.events.usableAgain();
        }, backoffMs(++this.failures)).unref();
      }
      throw e;
    }
  }

  close(): void {
    this.rest.close();
  }
}

export class RestConnectionSet extends SlotRing<RestSlotClient> implements LoadConnections {
  refused = 0;
  firstRefusedAtMs: number | null = null;
  private attempts = 0;
  private readonly outages: OutageRecord[] = [];
  private outage: { since: number; failedAttempts: number } | null = null;
  private readonly events: SlotEvents = {
    refused: (error) => {
      if (this.closed) return; // our own close cut the call short
      this.refused++;
      this.firstRefusedAtMs ??= Date.now();
      this.outage ??= { since: Date.now(), failedAttempts: 0 };
      this.outage.failedAttempts++;
      this.attemptFailed(error);
    },
    answered: () => {
      if (this.outage) this.outages.push({ ...this.outage, until: Date.now() });
      this.outage = null;
    },
    usableAgain: () => this.changed(),
    ended: () => this.onReplies?.(),
  };

  constructor(
    private readonly opts: Omit<RestClientOptions, 'maxSockets'>,
    count: number,
    pipeline: number,
  ) {
    super(count, pipeline, opts.timeoutMs, formatServerUrl({ host: opts.host, port: opts.port, tls: opts.tls }, 'tcp'));
  }

  private client(): RestSlotClient {
    this.attempts++;
    return new RestSlotClient(new EsploraRestClient({ ...this.opts, maxSockets: 1, pipelining: this.pipeline }), REST_SERVER, this.events);
  }

  /**
   * Opens the clients, each asking the tip once: that opens its socket before the schedule starts,
   * as the Electrum connections are (so the first requests of the run do not pay for a TCP
   * handshake the later ones do not), and an unreachable or non-Esplora server fails here, before
   * any load.
   */
  async open(): Promise<void> {
    this.server = REST_SERVER;
    for (const slot of this.slots) slot.client = this.client();
    try {
      await Promise.all(this.slots.map((s) => s.client!.rest.tipHeight()));
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** One request up front (the tip), so an unreachable or non-Esplora server fails before measuring; the others open as use() needs them. */
  async start(): Promise<ServerInfo> {
    const first = (this.slots[0].client ??= this.client());
    const tip = await first.rest.tipHeight();
    this.server = { ...REST_SERVER, features: { tipAtStart: tip } };
    return this.server;
  }

  protected fill(index: number): void {
    if (!this.closed) this.slots[index].client = this.client();
  }

  /**
   * After a call on `index` timed out, the slot gets a new client: the old one's socket is busy
   * with the abandoned request until it is answered (counted late) or aborted, and a request sent
   * behind it would wait for that. The old client keeps its other requests, which end on their
   * own, and is closed once no late answer can come any more.
   */
  replaceIfUnusable(index: number): void {
    const slot = this.slots[index];
    if (!slot.client?.timedOut || this.closed) return;
    // Its other requests reach their deadlines within the call timeout, and may answer late for LATE_GRACE_MS more.
    this.retireLater(slot.client, this.opts.timeoutMs + LATE_GRACE_MS + 1000);
    slot.client = this.client();
    this.changed();
  }

  get down(): boolean {
    return this.outage !== null;
  }

  get stats(): PoolStats {
    // An outage still on is recorded as lasting until now, as the Electrum reconnector does.
    const open = this.outage ? [{ ...this.outage, until: Date.now() }] : [];
    return { created: this.attempts, evicted: 0, lateReplies: this.lateReplies(), ...this.sizes(), connectAttempts: this.attempts, outages: [...this.outages, ...open] };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.retireAll();
    for (const s of this.slots) s.client?.close();
    this.changed();
  }
}
