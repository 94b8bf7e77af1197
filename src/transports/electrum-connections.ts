/**
 * The sockets a load run drives one server through: N Electrum connections, each carrying up to K
 * requests in flight (Electrum matches replies by id, so requests pipeline on one socket). A
 * connection that closed or had a call time out (its stream may be out of step) is replaced through
 * the server's one Reconnector: during an outage every slot waits on the same shared attempt.
 *
 * `--source-addresses` spreads connections over loopback source addresses (127.0.0.2, …) so that a
 * server's per-IP limits can be exercised (one address) or avoided (many) on purpose.
 */
import { ElectrumClient, ClientOptions } from '../electrum/client';
import { Reconnector } from '../electrum/reconnector';
import { SlotRing, type LoadConnections } from './connections';

export class ConnectionSet extends SlotRing<ElectrumClient> implements LoadConnections {
  private readonly reconnectors: Reconnector[];
  private closed = false;
  /** When a connection attempt first failed during the run. */
  firstRefusedAtMs: number | null = null;

  constructor(
    private readonly opts: ClientOptions,
    count: number,
    pipeline: number,
    sourceAddresses: string[] = [],
  ) {
    super(count, pipeline);
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

  private reconnectorOf(i: number): Reconnector {
    return this.reconnectors[i % this.reconnectors.length];
  }

  private async connect(i: number, mustSucceed = false): Promise<void> {
    const slot = this.slots[i];
    if (slot.connecting || this.closed) return;
    slot.connecting = true;
    try {
      for (;;) {
        try {
          slot.client = await this.reconnectorOf(i).connect(true);
          if (this.closed) {
            slot.client.close();
            return;
          }
          slot.client.on('close', () => {
            if (!this.closed) void this.connect(i);
          });
          return;
        } catch (err) {
          if (mustSucceed) throw err;
          if (this.closed) return; // closing: nobody waits for this connection any more
          this.firstRefusedAtMs ??= Date.now();
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
      this.retiring.add(old);
      setTimeout(() => this.retire(old), (this.opts.timeoutMs ?? 10_000) + 1000).unref();
      void this.connect(index);
    }
  }

  private readonly retiring = new Set<ElectrumClient>();
  private retiredLateReplies = 0;

  private retire(client: ElectrumClient): void {
    if (!this.retiring.delete(client)) return;
    this.retiredLateReplies += client.lateReplies;
    client.close();
  }

  /** Failed connection attempts (refused, reset, TLS), one per real attempt however many waited on it. */
  get refused(): number {
    return this.reconnectors.reduce((n, r) => n + r.failedAttempts, 0);
  }

  lateReplies(): number {
    return this.retiredLateReplies + [...this.retiring].reduce((n, c) => n + c.lateReplies, 0) + this.slots.reduce((n, s) => n + (s.client?.lateReplies ?? 0), 0);
  }

  close(): void {
    this.closed = true;
    for (const r of this.reconnectors) r.close();
    for (const c of [...this.retiring]) this.retire(c);
    for (const s of this.slots) s.client?.close();
  }
}
