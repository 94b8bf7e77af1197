/**
 * The Electrum transport's connections to one server. A load run drives N of them, each carrying
 * up to K requests in flight (Electrum matches replies by id, so requests pipeline on one socket);
 * the bench borrows them one caller at a time (`use`), opening them as callers need them. A
 * connection that closed or had a call time out (its stream may be out of step) is replaced
 * through the server's one Reconnector: during an outage every slot waits on the same shared
 * attempt, and each failed attempt is news for the callers waiting.
 *
 * `--source-addresses` spreads connections over loopback source addresses (127.0.0.2, …) so that a
 * server's per-IP limits can be exercised (one address) or avoided (many) on purpose.
 */
import { ElectrumClient, ClientOptions, type ServerInfo } from '../electrum/client';
import { toElectrumError } from '../electrum/errors';
import { Reconnector } from '../electrum/reconnector';
import { formatServerUrl } from '../core/server-address';
import { SlotRing, type LoadConnections, type PoolStats } from './connections';

export interface ConnectionSetOptions extends ClientOptions {
  /** How long use() waits for a free connection; never more than the call timeout (the default). */
  waitMs?: number;
}

export class ConnectionSet extends SlotRing<ElectrumClient> implements LoadConnections {
  private readonly reconnectors: Reconnector[];
  /** When a connection attempt first failed during the run. */
  firstRefusedAtMs: number | null = null;
  private created = 0;
  private evicted = 0;

  constructor(
    private readonly opts: ConnectionSetOptions,
    count: number,
    pipeline: number,
    sourceAddresses: string[] = [],
  ) {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    super(count, pipeline, Math.min(opts.waitMs ?? timeoutMs, timeoutMs), formatServerUrl({ host: opts.host, port: opts.port, tls: !!opts.tls, websocket: opts.websocket }, 'tcp'));
    // One reconnector per source address: an outage is one shared attempt per address, not per socket.
    const sources = sourceAddresses.length ? sourceAddresses : [undefined];
    const betweenReplies = () => this.onReplies?.();
    this.reconnectors = sources.map((localAddress) => new Reconnector({ ...opts, localAddress, betweenReplies }));
  }

  /**
   * Opens every connection; on the first failure closes what did open and rejects (a server that
   * refuses some of our connections, e.g. a per-IP cap, before any load).
   */
  async open(): Promise<void> {
    try {
      await Promise.all(this.slots.map((_, i) => this.connect(i, true)));
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /**
   * Opens the first connection with the whole handshake (server.features, server.banner: the
   * identity a run records), so an unreachable or silent server fails before anything is measured,
   * with what the attempt found. The others open as use() needs them.
   */
  async start(): Promise<ServerInfo> {
    await this.connect(0, true, true);
    return this.server!;
  }

  protected fill(index: number): void {
    void this.connect(index);
  }

  private reconnectorOf(i: number): Reconnector {
    return this.reconnectors[i % this.reconnectors.length];
  }

  private async connect(i: number, mustSucceed = false, withServerInfo = false): Promise<void> {
    const slot = this.slots[i];
    if (slot.connecting || this.closed) return;
    slot.connecting = true;
    try {
      for (;;) {
        try {
          const client = await this.reconnectorOf(i).connect(!withServerInfo);
          if (this.closed) {
            client.close();
            return;
          }
          slot.client = client;
          this.created++;
          this.server ??= client.server;
          client.on('close', () => {
            if (this.closed) return;
            if (!slot.lent) this.evicted++;
            this.changed();
            void this.connect(i);
          });
          this.changed();
          return;
        } catch (err) {
          if (mustSucceed) throw err;
          if (this.closed) return; // closing: nobody waits for this connection any more
          this.firstRefusedAtMs ??= Date.now();
          this.attemptFailed(toElectrumError(err));
        }
      }
    } finally {
      slot.connecting = false;
    }
  }

  /**
   * After a call on `index` timed out (the stream may be out of step), the slot gets a new
   * connection; the old one takes no new request but keeps its other calls, which finish or time
   * out on their own (closing it would turn them into disconnects of ours), and its late replies
   * are counted before it is closed.
   */
  replaceIfUnusable(index: number): void {
    const slot = this.slots[index];
    if (slot.client && !slot.client.usable) {
      const old = slot.client;
      slot.client = null;
      old.removeAllListeners('close');
      this.retireLater(old, (this.opts.timeoutMs ?? 10_000) + 1000);
      void this.connect(index);
    }
  }

  /** Failed connection attempts (refused, reset, TLS), one per real attempt however many waited on it. */
  get refused(): number {
    return this.reconnectors.reduce((n, r) => n + r.failedAttempts, 0);
  }

  /** True while the server is unreachable and the reconnect loop is running. */
  get down(): boolean {
    return this.reconnectors.some((r) => r.down);
  }

  get stats(): PoolStats {
    return {
      created: this.created,
      evicted: this.evicted,
      lateReplies: this.lateReplies(),
      ...this.sizes(),
      connectAttempts: this.reconnectors.reduce((n, r) => n + r.attempts, 0),
      outages: this.reconnectors.flatMap((r) => r.outages),
    };
  }

  /**
   * Closes every connection, cutting short any call still in flight (it fails with 'disconnect'),
   * any connect or backoff pending, and every caller waiting for a connection. `stats` are final
   * once it has returned.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const r of this.reconnectors) r.close();
    this.retireAll();
    for (const s of this.slots) s.client?.close();
    this.changed();
  }
}
