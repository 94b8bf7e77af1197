/**
 * What a load run's connections to one server are, whatever the transport: slots picked round robin,
 * each a caller with up to `pipeline` requests in flight. The engine drives this shape only, so a
 * transport brings its own set (electrum-connections.ts, esplora-rest-connections.ts) and nothing
 * above it tells them apart.
 */
import type { PendingCall, ServerInfo } from '../electrum/client';

/**
 * What the executors send through: an Electrum connection, or a REST client (esplora-rest-connections.ts).
 * Calls are queued, and a turn's calls go out at its end in one flush (one write per connection).
 */
export interface LoadCaller {
  readonly usable: boolean;
  readonly lateReplies: number;
  readonly server: ServerInfo;
  /** Queues `rpc` of `[scripthash]`; `call` is told its outcome. */
  queue(rpc: string, scripthash: string, call: PendingCall, timeoutMs: number): void;
  /** Sends what was queued; returns when (hrtime ns), or null when nothing was. */
  flush(): bigint | null;
}

export interface Slot<C extends LoadCaller = LoadCaller> {
  client: C | null;
  inFlight: number;
  connecting: boolean;
}

/** The sockets one server is loaded through, whatever the transport. */
export interface LoadConnections {
  readonly slots: Slot[];
  readonly server: ServerInfo | undefined;
  readonly allDown: boolean;
  readonly inFlight: number;
  readonly refused: number;
  readonly firstRefusedAtMs: number | null;
  open(): Promise<void>;
  /** The index of a connection that can take a request (`stay` if it can), or -1. */
  pick(stay?: number): number;
  replaceIfUnusable(index: number): void;
  lateReplies(): number;
  close(): void;
  /** Set by the driver: called while replies are being read, to send what fell due meanwhile. */
  onReplies: (() => void) | undefined;
}

/** Slots picked round robin, each with up to `pipeline` requests in flight: what every transport's set shares. */
export abstract class SlotRing<C extends LoadCaller> {
  readonly slots: Slot<C>[];
  private next = 0;
  onReplies: (() => void) | undefined;

  constructor(
    count: number,
    protected readonly pipeline: number,
  ) {
    this.slots = Array.from({ length: count }, () => ({ client: null, inFlight: 0, connecting: false }));
  }

  get server(): ServerInfo | undefined {
    return this.slots[0]?.client?.server;
  }

  /**
   * The index of a usable connection with a free pipeline slot, or -1 when all are full or down:
   * connection `stay` if it can take one more, else the next in round robin.
   */
  pick(stay?: number): number {
    if (stay !== undefined && this.canTake(this.slots[stay])) return stay;
    const n = this.slots.length;
    for (let k = 0; k < n; k++) {
      const index = (this.next + k) % n;
      if (this.canTake(this.slots[index])) {
        this.next = (index + 1) % n;
        return index;
      }
    }
    return -1;
  }

  private canTake(slot: Slot<C>): boolean {
    return slot.client !== null && slot.client.usable && slot.inFlight < this.pipeline;
  }

  /** True when no connection is usable at all (the server is unreachable, not merely busy). */
  get allDown(): boolean {
    return this.slots.every((s) => !s.client || !s.client.usable);
  }

  get inFlight(): number {
    return this.slots.reduce((n, s) => n + s.inFlight, 0);
  }
}
