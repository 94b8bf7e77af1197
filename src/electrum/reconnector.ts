/**
 * How a pool reaches its server: one connection attempt at a time while the server is down.
 *
 * When the server is up, every caller dials on its own. The first failure marks the server down;
 * from then on callers do not dial: they wait for the one shared attempt, which runs after a
 * backoff (100 ms doubling to 1 s) and is shared by everyone waiting. So an outage costs one
 * attempt per backoff step whatever the concurrency, every waiting call fails with the error of an
 * attempt made while it waited (never an older one), and the first success ends the outage for all.
 */
import { setMaxListeners } from 'node:events';
import { ElectrumClient, ClientOptions } from './client';
import { formatServerUrl } from '../core/server-address';
import { ElectrumError, toElectrumError } from './errors';

export const RECONNECT_BACKOFF_MS = { first: 100, max: 1000 } as const;

interface Outage {
  since: number;
  failures: number;
  /** The attempt everyone waiting shares; undefined between attempts. */
  attempt: Promise<ElectrumClient | ElectrumError> | undefined;
}

export interface OutageRecord {
  since: number;
  until: number;
  failedAttempts: number;
}

export class Reconnector {
  private outage: Outage | undefined;
  private readonly abort = new AbortController();
  /** Outages that ended, for the run's record. */
  readonly outages: OutageRecord[] = [];
  attempts = 0;
  /** Attempts that failed: each counted once, however many callers shared it. */
  failedAttempts = 0;

  constructor(private readonly opts: ClientOptions) {
    // Every connection being opened listens to this one signal: a load run opens dozens at once.
    setMaxListeners(0, this.abort.signal);
  }

  get down(): boolean {
    return this.outage !== undefined;
  }

  /** Cuts short every pending attempt and backoff; later calls fail at once. An outage still on is recorded as lasting until now. */
  close(): void {
    if (this.outage && !this.abort.signal.aborted) this.outages.push({ since: this.outage.since, until: Date.now(), failedAttempts: this.outage.failures });
    this.abort.abort();
  }

  /** A connected client, or the error of an attempt made after this call began. */
  async connect(skipServerInfo: boolean): Promise<ElectrumClient> {
    if (this.abort.signal.aborted) throw closingError(this.opts);
    if (!this.outage) {
      try {
        return await this.dial(skipServerInfo);
      } catch (err) {
        const e = toElectrumError(err);
        if (this.abort.signal.aborted) throw e;
        this.failedAttempts++;
        // Several callers dialling as the outage begins start it once: the backoff starts at its first step.
        if (!this.outage) this.outage = { since: Date.now(), failures: 1, attempt: undefined };
        throw e;
      }
    }
    const outage = this.outage;
    outage.attempt ??= this.sharedAttempt(outage, skipServerInfo);
    const result = await outage.attempt;
    if (result instanceof ElectrumError) throw result;
    // The shared attempt's client goes to the first waiter; the server is up, the others dial.
    if (!this.claimed.has(result)) {
      this.claimed.add(result);
      return result;
    }
    return this.connect(skipServerInfo);
  }

  private readonly claimed = new WeakSet<ElectrumClient>();

  private async sharedAttempt(outage: Outage, skipServerInfo: boolean): Promise<ElectrumClient | ElectrumError> {
    try {
      await abortableSleep(backoffMs(outage.failures), this.abort.signal);
      const client = await this.dial(skipServerInfo);
      this.outages.push({ since: outage.since, until: Date.now(), failedAttempts: outage.failures });
      if (this.outage === outage) this.outage = undefined;
      return client;
    } catch (err) {
      if (this.abort.signal.aborted) return closingError(this.opts);
      outage.failures++;
      this.failedAttempts++;
      return toElectrumError(err);
    } finally {
      outage.attempt = undefined;
    }
  }

  private dial(skipServerInfo: boolean): Promise<ElectrumClient> {
    this.attempts++;
    return ElectrumClient.connect({ ...this.opts, skipServerInfo, signal: this.abort.signal });
  }
}

function closingError(o: ClientOptions): ElectrumError {
  return new ElectrumError('disconnect', `pool ${formatServerUrl({ host: o.host, port: o.port, tls: !!o.tls, websocket: o.websocket }, 'tcp')} is closing`);
}

/** The wait before the next attempt after `failures` failed ones: the first step for none or one, then doubling to the cap. */
export function backoffMs(failures: number): number {
  return Math.min(RECONNECT_BACKOFF_MS.max, RECONNECT_BACKOFF_MS.first * 2 ** Math.max(0, failures - 1));
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts (its listener removed either way). */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
