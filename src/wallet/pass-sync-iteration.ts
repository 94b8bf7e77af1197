/**
 * The wallet bench's iteration: each unit is one wallet synced from scratch against one server in
 * a pass of the sequential plan (src/engine/executors/sequential.ts), ending as one result. Within a
 * pass, wallet after wallet, each on every server, the server order rotating per wallet (as
 * addresses rotate in `bench`) so that no server always comes first after another's work.
 */
import type { ServerTarget } from '../servers/targets';
import type { WalletLine } from '../core/wallet-line';
import type { ClientOptions } from '../electrum/client';
import type { PlanContext, PlanPart } from '../engine/iteration';
import { plannedIteration } from '../engine/iterations/planned';
import { syncWallet, type SyncResult } from './sync';
import type { Workload } from './workloads';

export interface WalletSync {
  pass: number;
  warmup: boolean;
  wallet: WalletLine;
  server: ServerTarget;
}

export interface WalletSyncs {
  workload: Workload;
  wallets: WalletLine[];
  servers: ServerTarget[];
  /** A server's connection options. */
  connection(server: ServerTarget): ClientOptions;
  verify: boolean;
  /** A sync is about to start. */
  starting?(unit: WalletSync): void;
  /** A sync's one result (the run's sinks take it from here). */
  synced(unit: WalletSync, result: SyncResult): void;
  /** A sync or what took its result threw: the run is to stop and fail with it. */
  failed(err: unknown): void;
}

export function passSyncIteration(syncs: WalletSyncs): PlanContext {
  return plannedIteration({
    servers: syncs.servers.length,
    unitsOf: (part) => passUnits(syncs, part).values(),
    run: (unit) => syncOne(syncs, unit),
    failed: syncs.failed,
  });
}

/** A pass is wallets × servers: small enough to lay out whole. */
function passUnits(syncs: WalletSyncs, part: PlanPart): WalletSync[] {
  const { servers } = syncs;
  const units: WalletSync[] = [];
  syncs.wallets.forEach((wallet, wi) => {
    const rotation = (part.pass + wi) % servers.length;
    for (let k = 0; k < servers.length; k++) {
      const s = (rotation + k) % servers.length;
      if (part.server === undefined || part.server === s) units.push({ pass: part.pass, warmup: part.warmup, wallet, server: servers[s] });
    }
  });
  return units;
}

async function syncOne(syncs: WalletSyncs, unit: WalletSync): Promise<void> {
  syncs.starting?.(unit);
  const r = await syncWallet(syncs.workload, unit.wallet, { connection: syncs.connection(unit.server), verify: syncs.verify });
  syncs.synced(unit, r);
}
