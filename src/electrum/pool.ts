/**
 * A pool of Electrum connections on generic-pool.
 *
 * generic-pool calls a failing `create()` again and again for as long as anyone waits (up to
 * acquireTimeoutMillis), which turns an unreachable server into a silent 30 s stall. So create()
 * retries a bounded number of times with backoff and then never rejects: it hands the waiter a
 * FailedConnection carrying the error, which use() turns into that error at once.
 * A client whose call timed out (its stream may be out of step) or whose socket closed is never
 * handed out again: it is checked on every borrow and every return, and destroyed.
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

class FailedConnection {
  constructor(readonly error: ElectrumError) {}
}

type Slot = ElectrumClient | FailedConnection;

export class ElectrumPool {
  private readonly pool: genericPool.Pool<Slot>;
  /** The handshake answer of the first connection: what the run records as the server's identity. */
  server: ServerInfo | undefined;
  private lateReplies = 0;
  private created = 0;
  private evicted = 0;
  private closing = false;
  private readonly borrowed = new Set<ElectrumClient>();
  private readonly lingering = new Set<ElectrumClient>();
  private closed: Promise<void> | undefined;

  constructor(private readonly opts: PoolOptions) {
    const retries = opts.createRetries ?? 3;
    const backoff = opts.createBackoffMs ?? 200;
    const factory: genericPool.Factory<Slot> = {
      create: async () => {
        let lastError: ElectrumError | undefined;
        for (let attempt = 0; attempt <= retries && !this.closing; attempt++) {
          if (attempt > 0) await sleep(backoff * 2 ** (attempt - 1));
          try {
            const client = await ElectrumClient.connect({ ...opts, skipServerInfo: this.server !== undefined });
            if (!this.server) this.server = client.server;
            this.created++;
            return client;
          } catch (err) {
            lastError = toElectrumError(err);
          }
        }
        return new FailedConnection(lastError ?? new ElectrumError('disconnect', `pool ${label(opts)} is closing`));
      },
      destroy: async (slot) => {
        if (!(slot instanceof ElectrumClient)) return;
        if (this.closing || !slot.awaitingLateReplies) return this.retire(slot);
        // Never reused, but kept open a while so a late reply can arrive and be counted.
        this.lingering.add(slot);
        setTimeout(() => this.retire(slot), Math.min(opts.timeoutMs ?? 30_000, 5_000)).unref();
      },
    };
    this.pool = genericPool.createPool(factory, {
      min: opts.min ?? 0,
      max: opts.max ?? 1,
      acquireTimeoutMillis: opts.acquireTimeoutMs ?? Math.max(opts.timeoutMs ?? 30_000, 10_000),
      autostart: false,
    });
  }

  /** Connects once up front so an unreachable server fails before any measuring starts. */
  async start(): Promise<ServerInfo> {
    await this.use(async () => undefined);
    return this.server!;
  }

  /** Borrows a client for `fn`; the client goes back to the pool, or is destroyed if it is unfit. */
  async use<T>(fn: (client: ElectrumClient) => Promise<T>): Promise<T> {
    const client = await this.borrow();
    this.borrowed.add(client);
    try {
      return await fn(client);
    } finally {
      this.borrowed.delete(client);
      if (client.usable) await this.pool.release(client);
      else await this.pool.destroy(client);
    }
  }

  private async borrow(): Promise<ElectrumClient> {
    for (;;) {
      let slot: Slot;
      try {
        slot = await this.pool.acquire();
      } catch (err) {
        const msg = (err as Error).message;
        throw new ElectrumError(/timeout|timed out/i.test(msg) ? 'timeout' : 'disconnect', `pool ${label(this.opts)}: ${msg}`);
      }
      if (slot instanceof FailedConnection) {
        await this.pool.destroy(slot);
        throw slot.error;
      }
      if (slot.usable) return slot;
      this.evicted++; // closed by the server while idle
      await this.pool.destroy(slot);
    }
  }

  get stats(): { created: number; evicted: number; lateReplies: number; size: number; available: number } {
    return { created: this.created, evicted: this.evicted, lateReplies: this.lateReplies, size: this.pool.size, available: this.pool.available };
  }

  /** Closes a client once, adding its late replies to the pool's count. */
  private retire(client: ElectrumClient): void {
    if (this.retired.has(client)) return;
    this.retired.add(client);
    this.lingering.delete(client);
    this.lateReplies += client.lateReplies;
    client.close();
  }

  private readonly retired = new WeakSet<ElectrumClient>();

  /**
   * Closes every connection, cutting short any call still in flight (it fails with 'disconnect').
   * Idempotent; `stats` are final once it has resolved.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      for (const client of this.borrowed) client.close();
      await this.pool.drain();
      await this.pool.clear();
      for (const client of [...this.lingering]) this.retire(client);
    })();
    return this.closed;
  }
}

function label(o: ClientOptions): string {
  return `${o.tls ? 'ssl' : 'tcp'}://${o.host}:${o.port}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
