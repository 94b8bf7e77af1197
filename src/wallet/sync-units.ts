/**
 * Wallet syncs as a runner's units (src/engine/runner.ts): each a whole sync on a connection of
 * its own (sync-iteration.ts), recorded in the run's seconds like a request, from its intended
 * start: latency from when it was due, service from its actual start, its lag the generator's.
 * Nothing is opened up front; syncs still running when the run cuts them short end unrecorded.
 */
import type { ClientOptions } from '../electrum/client';
import type { WalletLine } from '../core/wallet-line';
import type { UnitSource } from '../engine/unit-source';
import { walletSyncIteration, type WalletSyncIteration, type WalletSyncUnit } from './sync-iteration';
import type { SyncResult } from './sync';
import type { Workload } from './workloads';

export interface WalletSyncUnitsOptions<M extends string> {
  /** What the run's seconds call these units (a wallet load's `hold-sync` or `sync`). */
  name: M;
  /** The generator check's word for them ("arrivals"). */
  units: string;
  workload: Workload;
  wallets: WalletLine[];
  connection: ClientOptions;
  /** Keep each synced session open and subscribed: the hold executor's units. */
  hold?: boolean;
  /**
   * Every unit's end, once, before the seconds count it (its row, a session to hold); returns
   * whether it ended well for its executor.
   */
  ended(unit: WalletSyncUnit): boolean;
}

/** Bytes a sync's replies held. */
function bytesOf(r: SyncResult): number {
  let bytes = 0;
  for (const s of r.samples) bytes += s.bytes;
  return bytes;
}

export function walletSyncUnits<M extends string>(o: WalletSyncUnitsOptions<M>): UnitSource<M> {
  let syncs: WalletSyncIteration | undefined;
  let server: { software: string; protocol: string } | null = null;
  return {
    open: async () => undefined,
    get server() {
      return server;
    },
    iteration(sink, clock, failed) {
      syncs = walletSyncIteration({
        clock,
        workload: o.workload,
        wallets: o.wallets,
        connection: o.connection,
        hold: o.hold,
        failed,
        starting: (lagMs) => {
          sink.opened();
          sink.sentOne(lagMs * 1000);
        },
        ended: (unit) => {
          const ok = o.ended(unit);
          const r = unit.result;
          if (!server && r.software) server = { software: r.software, protocol: r.protocol ?? '' };
          const intendedNs = unit.intendedMs * 1e6;
          const startNs = intendedNs + unit.lagMs * 1e6;
          sink.completed(o.name, r.status, intendedNs, startNs, startNs + Number(r.durationNs), bytesOf(r));
          return ok;
        },
      });
      return syncs;
    },
    get inFlight() {
      return syncs?.inFlight ?? 0;
    },
    // A sync is many requests, each bounded by its own timeout: it ends by itself.
    drainMs: Infinity,
    close() {
      syncs?.cutShort();
    },
    refused: 0,
    firstRefusedAtMs: null,
    lateReplies: () => 0,
    get failure() {
      return syncs?.failure;
    },
    words: { units: o.units, late: 'started late' },
  };
}
