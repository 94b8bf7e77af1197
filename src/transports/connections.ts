/**
 * A transport's one connection layer, whatever the transport: slots of connections, each a caller
 * that either carries up to `pipeline` requests in flight, picked round robin (load), or is lent
 * whole to one caller at a time (`use`: the bench, the reachability check, the dataset's counts).
 * A transport brings its own set (electrum-connections.ts, esplora-rest-connections.ts) and nothing
 * above it tells them apart.
 */
import type { PendingCall, ServerInfo } from '../electrum/client';
import { ElectrumError } from '../electrum/errors';
import type { OutageRecord } from '../electrum/reconnector';
import { WakeableSleeps } from '../core/wakeable-sleeps';

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
  close(): void;
}

export interface Slot<C extends LoadCaller = LoadCaller> {
  client: C | null;
  inFlight: number;
  connecting: boolean;
  /** Lent whole to one caller by use(): no request of anyone else goes on it meanwhile. */
  lent: boolean;
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

/** What a set's connections went through, stored with a bench run. */
export interface PoolStats {
  /** Connections opened. */
  created: number;
  /** Idle connections the server closed. */
  evicted: number;
  lateReplies: number;
  /** Connections open now, and how many of them no caller holds. */
  size: number;
  available: number;
  connectAttempts: number;
  outages: OutageRecord[];
}

/** Slots picked round robin or lent one at a time: what every transport's set shares. */
export abstract class SlotRing<C extends LoadCaller> {
  readonly slots: Slot<C>[];
  private next = 0;
  onReplies: (() => void) | undefined;
  /** The identity of the first connection: what a run records as the server's. */
  server: ServerInfo | undefined;
  protected closed = false;
  /** Callers of use() waiting for a slot, each woken by any change. */
  private readonly waiting = new WakeableSleeps();
  /** The latest failed connection attempt: news for callers waiting while no slot is free. */
  private lastFailure: { error: ElectrumError; atNs: bigint } | undefined;

  constructor(
    count: number,
    protected readonly pipeline: number,
    /** How long use() waits for a free slot; never more than the call timeout. */
    private readonly waitMs: number,
    private readonly label: string,
  ) {
    this.slots = Array.from({ length: count }, () => ({ client: null, inFlight: 0, connecting: false, lent: false }));
  }

  /** Starts connecting slot `index`, which has no connection and is not connecting (use() fills slots as callers need them). */
  protected abstract fill(index: number): void;

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
    return slot.client !== null && slot.client.usable && !slot.lent && slot.inFlight < this.pipeline;
  }

  /** True when no connection is usable at all (the server is unreachable, not merely busy). */
  get allDown(): boolean {
    return this.slots.every((s) => !s.client || !s.client.usable);
  }

  get inFlight(): number {
    // A plain loop: an open-model pacer asks at every turn whether anything is in flight.
    let n = 0;
    for (const s of this.slots) n += s.inFlight;
    return n;
  }

  abstract replaceIfUnusable(index: number): void;

  /** Connections taken out of service whose calls may still be answered (late), until closed. */
  private readonly retiring = new Set<C>();
  private retiredLateReplies = 0;

  /**
   * Takes `client`, no longer in its slot, out of service for good: it gets no new request but keeps those it has,
   * which end on their own; it is closed after `graceMs`, when a late answer can no longer come,
   * its late answers counted.
   */
  protected retireLater(client: C, graceMs: number): void {
    this.retiring.add(client);
    setTimeout(() => this.retire(client), graceMs).unref();
  }

  private retire(client: C): void {
    if (!this.retiring.delete(client)) return;
    this.retiredLateReplies += client.lateReplies;
    client.close();
  }

  /** Closes every retiring connection now (the set is closing). */
  protected retireAll(): void {
    for (const c of [...this.retiring]) this.retire(c);
  }

  /** Replies that came after their call had timed out, on every connection the set has had. */
  lateReplies(): number {
    let n = this.retiredLateReplies;
    for (const c of this.retiring) n += c.lateReplies;
    for (const s of this.slots) n += s.client?.lateReplies ?? 0;
    return n;
  }

  /**
   * Lends a connection to `fn` alone, waiting for one to be free. While the server is down, a
   * waiting caller fails with the error of a connection attempt made while it waited (never an
   * older one), so an outage is recorded at the reconnect loop's pace rather than as stalls; when
   * no connection frees up within the wait, it fails with a timeout. A connection left unusable
   * (its call timed out, its socket closed) is replaced, never lent again.
   */
  async use<T>(fn: (client: C) => Promise<T>): Promise<T> {
    const since = process.hrtime.bigint();
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      if (this.closed) throw this.closingError();
      const index = this.slots.findIndex((s) => s.client !== null && s.client.usable && !s.lent && s.inFlight === 0);
      if (index >= 0) return this.lend(index, fn);
      const news = this.lastFailure;
      if (news && news.atNs >= since) throw news.error;
      const empty = this.slots.findIndex((s) => s.client === null && !s.connecting);
      if (empty >= 0) {
        this.fill(empty);
        if (this.slots[empty].client?.usable) continue; // a transport whose clients open at once (REST)
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new ElectrumError('timeout', `${this.label}: no connection free within ${this.waitMs} ms`);
      await this.waiting.sleep(left);
    }
  }

  private async lend<T>(index: number, fn: (client: C) => Promise<T>): Promise<T> {
    const slot = this.slots[index];
    slot.lent = true;
    slot.inFlight++;
    try {
      return await fn(slot.client!);
    } finally {
      slot.inFlight--;
      slot.lent = false;
      this.replaceIfUnusable(index);
      this.changed();
    }
  }

  /** Something a waiting caller may act on: a connection freed or opened, an attempt failed, the set closed. */
  protected changed(): void {
    this.waiting.wakeAll();
  }

  protected attemptFailed(error: ElectrumError): void {
    this.lastFailure = { error, atNs: process.hrtime.bigint() };
    this.changed();
  }

  protected closingError(): ElectrumError {
    return new ElectrumError('disconnect', `${this.label} is closing`);
  }

  /** Connections open now, and how many no caller holds. */
  protected sizes(): { size: number; available: number } {
    const open = this.slots.filter((s) => s.client?.usable);
    return { size: open.length, available: open.filter((s) => !s.lent && s.inFlight === 0).length };
  }
}
