/**
 * The wallet-sync iteration: each unit is one whole wallet sync by a workload (src/wallet/sync.ts)
 * on a connection of its own, the next wallet of the file in turn. The engine's executors start
 * them: arrivals and virtual users (src/engine/executors/) for syncs that end, the hold executor
 * for syncs whose session stays open and subscribed.
 */
import type { ClientOptions } from '../electrum/client';
import type { WalletLine } from '../core/wallet-line';
import type { IterationContext, UnitBatch } from '../engine/iteration';
import type { RunClock } from '../engine/run-clock';
import type { HeldConnection } from './notifications';
import { syncWallet, type SyncResult } from './sync';
import type { Workload } from './workloads';

/** One unit, ended: which sync it was, when it was due, how late it started and what it did. */
export interface WalletSyncUnit {
  result: SyncResult;
  /** Due on the run's clock (ms from its start). */
  intendedMs: number;
  /** How late it started: our own scheduling, not the server. */
  lagMs: number;
  /** With `hold`: the connection's notifications since it was opened (what came during the sync included). */
  connection?: HeldConnection;
}

export interface WalletSyncOptions {
  clock: RunClock;
  workload: Workload;
  wallets: WalletLine[];
  connection: ClientOptions;
  /** Keep each synced session open and subscribed (its notifications recorded): the hold executor's units. */
  hold?: boolean;
  /**
   * Every unit's end, exactly once; returns whether it ended well for its executor (a sync held,
   * for the hold executor; a sync answered, for the others).
   */
  ended(unit: WalletSyncUnit): boolean;
  /** A sync, or recording it, threw (a user's error, a write refused): the run is to stop and fail with it. */
  failed?(err: unknown): void;
  /** A unit is about to start its sync, `lagMs` after it was due. */
  starting?(lagMs: number): void;
}

export interface WalletSyncIteration extends IterationContext {
  /** Units started so far. */
  readonly started: number;
  /** Units started and not yet ended. */
  readonly inFlight: number;
  /** What a unit threw rather than ended with, if one did. */
  readonly failure: unknown;
  /**
   * Cuts short the units still running: each one's session is closed when it ends, and its end is
   * not recorded (a stop never waits for a server's timeouts). Returns how many there were.
   */
  cutShort(): number;
  /**
   * Resolves when every unit started has ended; or, once `stopped` has resolved, after at most
   * `graceMs` more, giving how many were still running then: those are cut short (their sessions
   * closed when they end, their ends not recorded), so a stop never waits for a server's timeouts.
   * Throws what a unit threw.
   */
  settled(stopped?: Promise<void>, graceMs?: number): Promise<number>;
}

export function walletSyncIteration(o: WalletSyncOptions): WalletSyncIteration {
  const running = new Set<Promise<void>>();
  let started = 0;
  /** A sync that threw rather than ended (a user's error, e.g. a wallet the workload cannot read). */
  let thrown: unknown;
  /** Past the stop's grace: what ends now is not recorded. */
  let cutShort = false;
  const start = (intendedNs: number, whenDone?: (ok: boolean) => void): void => {
    const index = started++;
    const lagMs = (o.clock.now() - intendedNs) / 1e6;
    o.starting?.(lagMs);
    const wallet = o.wallets[index % o.wallets.length];
    const connection: HeldConnection | undefined = o.hold ? { id: index + 1, subscribed: new Set(), heard: [] } : undefined;
    const sync = syncWallet(o.workload, wallet, {
      connection: o.connection,
      verify: false,
      hold: o.hold,
      onNotification: connection ? (n) => connection.heard.push(n) : undefined,
    }).then((result) => {
      if (cutShort) {
        result.session?.close();
        return whenDone?.(false);
      }
      // Recorded whether or not anyone waits for it (an open-model start does not).
      const ok = o.ended({ result, intendedMs: intendedNs / 1e6, lagMs, connection });
      whenDone?.(ok);
    });
    running.add(sync);
    sync.then(
      () => running.delete(sync),
      (err) => {
        running.delete(sync);
        thrown ??= err;
        o.failed?.(err);
        // Its executor is told, or a user of a hold or a virtual user would wait for it for ever.
        whenDone?.(false);
      },
    );
  };
  // A sync is a connection of its own: there is no write to share, so a unit starts when added.
  const batch = (): UnitBatch => ({
    size: 0,
    oldestNs: Infinity,
    add(intendedNs, whenDone) {
      start(intendedNs, whenDone);
      return true;
    },
    flush() {},
  });
  return {
    clock: o.clock,
    batch,
    // Syncs take milliseconds to seconds: the pacer's own timer is early enough for the next one.
    onProgress() {},
    get started() {
      return started;
    },
    get inFlight() {
      return running.size;
    },
    get failure() {
      return thrown;
    },
    cutShort() {
      cutShort = running.size > 0;
      return running.size;
    },
    async settled(stopped, graceMs = 0) {
      let graceOver = false;
      const grace = stopped?.then(() => new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref())).then(() => void (graceOver = true));
      while (running.size > 0 && !graceOver) await Promise.race([Promise.allSettled([...running]), ...(grace ? [grace] : [])]);
      if (thrown) throw thrown;
      return this.cutShort();
    },
  };
}
