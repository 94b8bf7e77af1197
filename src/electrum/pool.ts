/**
 * A pool of Electrum connections on generic-pool.
 *
 * generic-pool calls a failing `create()` again and again for as long as anyone waits, which turns
 * an unreachable server into a silent stall, and every waiting task would dial on its own. So
 * create() goes through the pool's one Reconnector (one shared attempt at a time during an outage,
 * with backoff) and never rejects: on failure it hands the waiter a FailedConnection carrying the
 * error and the time it happened, which use() turns into that error at once. A FailedConnection
 * older than the wait of the task it reaches is discarded: a task only ever fails with the outcome
 * of an attempt made while it waited.
 * A client whose call timed out (its stream may be out of step) or whose socket closed is never
 * handed out again: it is checked on every borrow and every return, and destroyed.
 */
import { formatServerUrl } from '../core/server-address';
import * as genericPool from 'generic-pool';
import { ElectrumClient, ClientOptions, ServerInfo } from './client';
import { ElectrumError, toElectrumError } from './errors';
import { OutageRecord, Reconnector } from './reconnector';

export interface PoolOptions extends ClientOptions {
  min?: number;
  max?: number;
  /** How long a task may wait for a connection; never more than the call timeout (the default). */
  acquireTimeoutMs?: number;
}

/** The pool's own wait for a connection ended (generic-pool's words), not a connection attempt. */
class PoolWaitError extends ElectrumError {}

class FailedConnection {
  readonly at = process.hrtime.bigint();
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

  private readonly reconnector: Reconnector;
  /** The newest connection attempt, for start() to report when the pool's own wait ends first. */
  private lastCreate: Promise<Slot> | undefined;

  constructor(private readonly opts: PoolOptions) {
    this.reconnector = new Reconnector(opts);
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const factory: genericPool.Factory<Slot> = {
      create: () => (this.lastCreate = this.createSlot()),
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
      acquireTimeoutMillis: Math.min(opts.acquireTimeoutMs ?? timeoutMs, timeoutMs),
      autostart: false,
    });
  }

  private async createSlot(): Promise<Slot> {
    try {
      const client = await this.reconnector.connect(this.server !== undefined);
      if (!this.server) this.server = client.server;
      this.created++;
      return client;
    } catch (err) {
      return new FailedConnection(toElectrumError(err));
    }
  }

  /**
   * Connects once up front so an unreachable server fails before any measuring starts. The pool's
   * wait and the handshake's timeout end together; what the attempt found (refused, silent, no end
   * of line) says more than the pool's own "timed out", so that is what a failure carries.
   */
  async start(): Promise<ServerInfo> {
    try {
      await this.use(async () => undefined);
    } catch (err) {
      const attempt = this.lastCreate;
      if (!(err instanceof PoolWaitError) || attempt === undefined) throw err;
      const slot = await attempt;
      if (slot instanceof FailedConnection) throw slot.error;
      await this.use(async () => undefined);
    }
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
    const waitingSince = process.hrtime.bigint();
    for (;;) {
      let slot: Slot;
      try {
        slot = await this.pool.acquire();
      } catch (err) {
        const msg = (err as Error).message;
        throw new PoolWaitError(/timeout|timed out/i.test(msg) ? 'timeout' : 'disconnect', `pool ${label(this.opts)}: ${msg}`);
      }
      if (slot instanceof FailedConnection) {
        await this.pool.destroy(slot);
        if (slot.at < waitingSince && !this.closing) continue; // another task's news, not ours
        throw slot.error;
      }
      if (slot.usable) return slot;
      this.evicted++; // closed by the server while idle
      await this.pool.destroy(slot);
    }
  }

  get stats(): PoolStats {
    return {
      created: this.created,
      evicted: this.evicted,
      lateReplies: this.lateReplies,
      size: this.pool.size,
      available: this.pool.available,
      connectAttempts: this.reconnector.attempts,
      outages: this.reconnector.outages,
    };
  }

  /** True while the server is unreachable and the reconnect loop is running. */
  get down(): boolean {
    return this.reconnector.down;
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
      this.reconnector.close();
      for (const client of this.borrowed) client.close();
      await this.pool.drain();
      await this.pool.clear();
      for (const client of [...this.lingering]) this.retire(client);
    })();
    return this.closed;
  }
}

export interface PoolStats {
  created: number;
  evicted: number;
  lateReplies: number;
  size: number;
  available: number;
  connectAttempts: number;
  outages: OutageRecord[];
}

function label(o: ClientOptions): string {
  return formatServerUrl({ host: o.host, port: o.port, tls: !!o.tls }, 'tcp');
}
