/**
 * The REST transport's counterpart of ElectrumPool, with the surface the bench runner uses: one
 * keep-alive client per server (sockets up to the concurrency), its identity checked up front, and
 * during an outage calls paced by a shared backoff instead of failing as fast as the loop can spin
 * (each still recorded as a disconnect), like the Electrum pool's one reconnect loop.
 */
import type { ServerInfo } from '../electrum/client';
import { isElectrumError, toElectrumError } from '../electrum/errors';
import type { OutageRecord } from '../electrum/reconnector';
import type { PoolStats } from '../electrum/pool';
import { EsploraRestClient, type RestClientOptions } from './rest-client';

const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 2_000;

/** What a REST server reports of itself: its API has no version call, so the transport is its identity. */
export const ESPLORA_REST_SOFTWARE = 'Esplora REST API';

export class EsploraRestPool {
  readonly client: EsploraRestClient;
  server: ServerInfo | undefined;
  private retryAt = 0;
  private backoffMs = BACKOFF_MIN_MS;
  private attempts = 0;
  private readonly outages: OutageRecord[] = [];
  private outage: { since: number; failedAttempts: number } | null = null;

  constructor(opts: RestClientOptions) {
    this.client = new EsploraRestClient(opts);
  }

  /** One request up front (the tip), so an unreachable or non-Esplora server fails before measuring. */
  async start(): Promise<ServerInfo> {
    const tip = await this.client.tipHeight();
    this.server = { software: ESPLORA_REST_SOFTWARE, protocol: 'http/1.1', features: { tipAtStart: tip } };
    return this.server;
  }

  async use<T>(fn: (client: EsploraRestClient) => Promise<T>): Promise<T> {
    const wait = this.retryAt - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.attempts++;
    try {
      const out = await fn(this.client);
      this.recovered();
      return out;
    } catch (err) {
      const e = isElectrumError(err) ? err : toElectrumError(err);
      if (e.category === 'disconnect') this.failed();
      else this.recovered();
      throw e;
    }
  }

  private failed(): void {
    this.outage ??= { since: Date.now(), failedAttempts: 0 };
    this.outage.failedAttempts++;
    this.retryAt = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
  }

  private recovered(): void {
    if (this.outage) this.outages.push({ ...this.outage, until: Date.now() });
    this.outage = null;
    this.backoffMs = BACKOFF_MIN_MS;
    this.retryAt = 0;
  }

  get down(): boolean {
    return this.outage !== null;
  }

  get stats(): PoolStats {
    // An outage still on is recorded as lasting until now, as the Electrum pool's reconnector does.
    const open = this.outage ? [{ ...this.outage, until: Date.now() }] : [];
    return { created: 0, evicted: 0, lateReplies: this.client.lateReplies, size: 0, available: 0, connectAttempts: this.attempts, outages: [...this.outages, ...open] };
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/** The tip, polled over REST (no subscriptions there), on a client of its own. */
export class RestTipFollower {
  height: number | null = null;
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly client: EsploraRestClient) {}

  static async start(opts: RestClientOptions, everyMs = 2_000): Promise<RestTipFollower> {
    const f = new RestTipFollower(new EsploraRestClient({ ...opts, maxSockets: 1, measureLoop: false }));
    const poll = async () => {
      try {
        f.height = await f.client.tipHeight();
      } catch {
        // A tip is context, not a measurement: the last one known stays.
      }
    };
    await poll();
    f.timer = setInterval(() => void poll(), everyMs);
    f.timer.unref();
    return f;
  }

  close(): void {
    clearInterval(this.timer);
    this.client.close();
  }
}
