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
import { ElectrumError } from '../electrum/errors';
import { Reconnector } from '../electrum/reconnector';

export interface Slot {
  client: ElectrumClient | null;
  inFlight: number;
  connecting: boolean;
}

export class ConnectionSet {
  readonly slots: Slot[];
  private readonly reconnectors: Reconnector[];
  private next = 0;
  private closed = false;
  /** Connection failures (refused, reset, TLS), counted with the time of the first. */
  refused = 0;
  firstRefusedAtMs: number | null = null;

  constructor(
    private readonly opts: ClientOptions,
    count: number,
    private readonly pipeline: number,
    sourceAddresses: string[] = [],
  ) {
    this.slots = Array.from({ length: count }, () => ({ client: null, inFlight: 0, connecting: false }));
    // One reconnector per source address: an outage is one shared attempt per address, not per socket.
    const sources = sourceAddresses.length ? sourceAddresses : [undefined];
    this.reconnectors = sources.map((localAddress) => new Reconnector({ ...opts, localAddress }));
  }

  /** Opens every connection; rejects with the first failure (an unreachable server before any load). */
  async open(): Promise<void> {
    await Promise.all(this.slots.map((_, i) => this.connect(i, true)));
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
          slot.client.on('close', () => {
            if (!this.closed) void this.connect(i);
          });
          return;
        } catch (err) {
          if (mustSucceed || this.closed) throw err;
          this.refused++;
          this.firstRefusedAtMs ??= Date.now();
        }
      }
    } finally {
      slot.connecting = false;
    }
  }

  /** A usable connection with a free pipeline slot (round robin), or null when all are full or down. */
  pick(): { slot: Slot; index: number } | null {
    const n = this.slots.length;
    for (let k = 0; k < n; k++) {
      const index = (this.next + k) % n;
      const slot = this.slots[index];
      if (slot.client && slot.client.usable && slot.inFlight < this.pipeline) {
        this.next = (index + 1) % n;
        return { slot, index };
      }
    }
    return null;
  }

  /** True when no connection is usable at all (the server is unreachable, not merely busy). */
  get allDown(): boolean {
    return this.slots.every((s) => !s.client || !s.client.usable);
  }

  get inFlight(): number {
    return this.slots.reduce((n, s) => n + s.inFlight, 0);
  }

  /** After a call on `index` failed in a way that spoils the connection, replace it. */
  replaceIfUnusable(index: number): void {
    const slot = this.slots[index];
    if (slot.client && !slot.client.usable) {
      const old = slot.client;
      slot.client = null;
      old.removeAllListeners('close');
      old.close();
      void this.connect(index);
    }
  }

  lateReplies(): number {
    return this.slots.reduce((n, s) => n + (s.client?.lateReplies ?? 0), 0);
  }

  close(): void {
    this.closed = true;
    for (const r of this.reconnectors) r.close();
    for (const s of this.slots) s.client?.close();
  }
}

export function disconnectError(label: string): ElectrumError {
  return new ElectrumError('disconnect', `${label}: no connection to the server`);
}
