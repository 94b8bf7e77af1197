/**
 * Held wallets whose connection drops do what a wallet does: connect again and sync again, which
 * subscribes to everything once more. Electrum itself then asks histories only for scripts whose
 * status changed; here the wallet syncs from scratch, so the cost measured is an upper bound.
 *
 * A down server is not hammered: every way back goes through one Reconnector per server, so while
 * it is down there is one connection attempt per backoff step (100 ms doubling to 1 s) however many
 * wallets wait, and once it is back at most `concurrency` wallets sync again at a time (the hold's
 * own limit). A sync that fails after its connect (a server still starting may close it) backs off
 * the same way before the next try.
 *
 * Recorded per server: connections lost and held again, how long each took from its loss, failed
 * attempts, and the outages (src/core/outages.ts): from the first held connection lost (confirmed
 * by a refused attempt) to the first handshake the server answered after it.
 */
import type { ClientOptions } from '../electrum/client';
import { abortableSleep, backoffMs, Reconnector } from '../electrum/reconnector';
import type { WalletLine } from '../core/wallet-line';
import { OutageLog } from '../core/outages';
import type { HeldReconnects } from '../core/held-reconnects';
import { sortedLine } from '../core/percentile-line';
import { Slots } from '../core/slots';
import { Findings } from './findings';
import { WalletSession } from './session';
import type { HeldConnection } from './notifications';
import type { Workload } from './workloads';

export interface HeldWallet extends HeldConnection {
  session: WalletSession;
  wallet: WalletLine;
}

export class Rehold {
  private readonly reconnector: Reconnector;
  private readonly stopSleeps = new AbortController();
  /** Sessions being synced again: closed at once by a stop. */
  private readonly syncing = new Set<WalletSession>();
  private readonly slots: Slots;
  private closed = false;
  private readonly log = new OutageLog();
  private lost = 0;
  private stillLost = 0;
  private readonly reholdMs: number[] = [];
  private seenFailures = 0;

  constructor(
    private readonly connection: ClientOptions,
    private readonly workload: Workload,
    /** Epoch ms of the server's run start: outages are timed from it. */
    private readonly originMs: number,
    concurrency: number,
  ) {
    this.reconnector = new Reconnector({ ...connection, ...workload.client });
    this.slots = new Slots(concurrency);
  }

  /** From now on, `h` is held again whenever its connection drops. */
  watch(h: HeldWallet): void {
    const lost = () => {
      if (this.closed) return;
      this.lost++;
      this.stillLost++;
      this.log.gone(this.offsetNs(), false);
      void this.holdAgain(h, Date.now());
    };
    // Closed (or left out of step by a timeout) before it could be watched: lost already.
    if (!h.session.connection.usable) lost();
    else h.session.connection.once('close', lost);
  }

  /** Stops every way back now: attempts, backoffs and syncs in course are cut short. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reconnector.close();
    this.stopSleeps.abort();
    for (const s of this.syncing) s.close();
    this.slots.releaseAll();
  }

  summary(): HeldReconnects {
    const line = sortedLine([...this.reholdMs].sort((a, b) => a - b));
    return {
      lost: this.lost,
      reheld: this.reholdMs.length,
      stillLost: this.stillLost,
      reholdP50Ms: line.p50,
      reholdMaxMs: line.max,
      failedAttempts: this.reconnector.failedAttempts,
      outages: this.log.outages(this.originMs),
    };
  }

  private offsetNs(): number {
    return (Date.now() - this.originMs) * 1e6;
  }

  private async holdAgain(h: HeldWallet, lostAtMs: number): Promise<void> {
    // Failed syncs of a server that did take the connection; failed connects are paced by the reconnector.
    let failedSyncs = 0;
    while (!this.closed) {
      // A stop ends the wait at once; the loop then sees it closed.
      if (failedSyncs > 0) await abortableSleep(backoffMs(failedSyncs), this.stopSleeps.signal).catch(() => undefined);
      await this.slots.take();
      if (this.closed) return this.slots.give();
      const session = new WalletSession({ ...this.connection, ...this.workload.client }, this.workload.maxInFlight, process.hrtime.bigint(), (n) => h.heard.push(n), () => this.dial());
      this.syncing.add(session);
      let connected = false;
      try {
        await session.open();
        connected = true;
        const found = new Findings();
        await this.workload.sync(session, h.wallet, found);
        if (this.closed || !session.connection.usable) throw new Error('closed during the sync');
        h.session = session;
        h.subscribed = found.subscribed;
        this.stillLost--;
        this.reholdMs.push(Date.now() - lostAtMs);
        this.watch(h);
        return;
      } catch {
        session.close();
        if (connected) failedSyncs++;
      } finally {
        this.syncing.delete(session);
        this.slots.give();
      }
    }
  }

  /** A connection through the server's one reconnector: a failed attempt confirms the server is gone, a handshake ends it. */
  private async dial() {
    try {
      const client = await this.reconnector.connect(true);
      this.log.answered(this.offsetNs());
      return client;
    } catch (err) {
      // Each failed attempt once, however many wallets shared it.
      if (this.reconnector.failedAttempts > this.seenFailures && !this.closed) {
        this.seenFailures = this.reconnector.failedAttempts;
        this.log.gone(this.offsetNs(), true);
      }
      throw err;
    }
  }
}
