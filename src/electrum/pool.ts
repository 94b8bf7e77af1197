/**
 * A pool of Electrum connections on generic-pool.
 *
 * generic-pool retries a failing `create()` forever and waits forever for a free resource unless
 * told otherwise; a benchmark must fail instead. So: create() retries a bounded number of times
 * with backoff, acquireTimeoutMillis is always set, and a client whose call timed out (its stream
 * may be out of step) or whose socket closed is never handed out again.
 */
import * as genericPool from 'generic-pool';
import { ElectrumClient, ClientOptions, ServerInfo } from './client';
import { ElectrumError, toElectrumError } from './errors';

export interface PoolOptions extends ClientOptions {
  min?: number;
  max?: number;
  acquireTimeoutMs?: number;
  createRetries?: number;
  createBackoffMs?: number;
}

export class ElectrumPool {
  private readonly pool: genericPool.Pool<ElectrumClient>;
  /** The handshake answer of the first connection: what the run records as the server's identity. */
  server: ServerInfo | undefined;
  private lateReplies = 0;
  private created = 0;
  private evicted = 0;

  constructor(private readonly opts: PoolOptions) {
    const retries = opts.createRetries ?? 3;
    const backoff = opts.createBackoffMs ?? 200;
    const factory: genericPool.Factory<ElectrumClient> = {
      create: async () => {
        let lastError: unknown;
        for (let attempt = 0; attempt <= retries; attempt++) {
          if (attempt > 0) await sleep(backoff * 2 ** (attempt - 1));
          try {
            const client = await ElectrumClient.connect({ ...opts, skipServerInfo: this.server !== undefined });
            if (!this.server) this.server = client.server;
            this.created++;
            return client;
          } catch (err) {
            lastError = err;
          }
        }
        throw lastError;
      },
      destroy: async (client) => {
        this.lateReplies += client.lateReplies;
        client.close();
      },
      validate: async (client) => {
        if (!client.usable) this.evicted++;
        return client.usable;
      },
    };
    this.pool = genericPool.createPool(factory, {
      min: opts.min ?? 0,
      max: opts.max ?? 1,
      acquireTimeoutMillis: opts.acquireTimeoutMs ?? Math.max(opts.timeoutMs ?? 30_000, 10_000),
      testOnBorrow: true,
      testOnReturn: true,
      autostart: false,
    });
    this.pool.setMaxListeners(0); // one short-lived listener per waiting acquire
  }

  /** Connects once up front so an unreachable server fails before any measuring starts. */
  async start(): Promise<ServerInfo> {
    await this.use(async () => undefined);
    return this.server!;
  }

  /** Borrows a client for `fn`; the client goes back to the pool, or is destroyed if it is unfit. */
  async use<T>(fn: (client: ElectrumClient) => Promise<T>): Promise<T> {
    const client = await this.acquire();
    try {
      return await fn(client);
    } finally {
      if (client.usable) await this.pool.release(client);
      else await this.pool.destroy(client);
    }
  }

  /**
   * generic-pool keeps calling create() for a waiting acquire until acquireTimeoutMillis; once our
   * bounded retries inside create() have given up, the waiter should hear it now, not 30 s later.
   */
  private acquire(): Promise<ElectrumClient> {
    const acquiring = this.pool.acquire();
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return false;
        settled = true;
        this.pool.off('factoryCreateError', onCreateError);
        fn();
        return true;
      };
      const onCreateError = (err: unknown) => {
        if (settle(() => reject(toElectrumError(err)))) {
          // The abandoned acquire may still succeed later: hand that client straight back.
          acquiring.then((c) => this.pool.release(c), () => undefined);
        }
      };
      this.pool.on('factoryCreateError', onCreateError);
      acquiring.then(
        (c) => settle(() => resolve(c)),
        (err: Error) =>
          settle(() =>
            reject(new ElectrumError(/timeout|timed out/i.test(err.message) ? 'timeout' : 'disconnect', `pool ${label(this.opts)}: ${err.message}`)),
          ),
      );
    });
  }

  get stats(): { created: number; evicted: number; lateReplies: number; size: number; available: number } {
    return { created: this.created, evicted: this.evicted, lateReplies: this.lateReplies, size: this.pool.size, available: this.pool.available };
  }

  async close(): Promise<void> {
    await this.pool.drain();
    await this.pool.clear();
  }
}

function label(o: ClientOptions): string {
  return `${o.tls ? 'ssl' : 'tcp'}://${o.host}:${o.port}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
