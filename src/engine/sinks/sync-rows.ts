/**
 * A wallet run's per-sync rows: every sync, with its requests, into `wallet_syncs` and
 * `wallet_requests`, as it ends (a bench pass's or a load's alike); the first answered sync of a
 * server records the identity it gave.
 */
import type { SyncRecord, WalletStore } from '../../store/wallets';
import type { UnitSink } from './unit-sink';

export interface StoredSync {
  row: SyncRecord;
  /** What the server said it is (server.version), when the sync got that far. */
  identity: { software?: string; protocol?: string };
}

export class SyncRows implements UnitSink<StoredSync> {
  constructor(
    private readonly store: WalletStore,
    private readonly runId: number,
  ) {}

  record({ row, identity }: StoredSync): void {
    this.store.recordSync(this.runId, row, identity);
  }
}
