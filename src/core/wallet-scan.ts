/**
 * How each workload's wallet scans its chains, and so what a full sync of a wallet asks: the
 * workloads (src/wallet/workloads/) scan with these figures, and wallets files carry the counts
 * they imply, so a sync can be checked against a count made without running it. "Used" is the
 * number of scripts from the chain's start to its last used one.
 */
import type { WalletChain } from './wallet-chain';

export const SCAN = {
  /** Electrum: 20 receive and 10 change addresses past the last used one. */
  electrum: { gap: { receive: 20, change: 10 } as Record<WalletChain, number> },
  /** Sparrow: its lookahead, 20, on both chains. */
  sparrow: { gap: { receive: 20, change: 20 } as Record<WalletChain, number> },
  /** BDK: the caller's stop gap and batch size (the crate has no default). */
  bdk: { stopGap: 20, batch: 10 },
};

export type FullSync = Record<keyof typeof SCAN, Record<string, number>>;
export type WorkloadName = keyof typeof SCAN;

/**
 * Scripts from each chain's start that a full sync by `workload` asks about, given how many are
 * used: what a wallets file must list, or the scan would run past its end.
 */
export function scriptsScanned(workload: WorkloadName, used: Record<WalletChain, number>): Record<WalletChain, number> {
  const scanned = (chain: WalletChain) =>
    workload === 'bdk' ? Math.ceil((used[chain] + SCAN.bdk.stopGap) / SCAN.bdk.batch) * SCAN.bdk.batch : used[chain] + SCAN[workload].gap[chain];
  return { receive: scanned('receive'), change: scanned('change') };
}

/**
 * Counts of a full sync that are a floor, not the number: BDK proves each confirmed history entry,
 * so a transaction in the histories of several of the wallet's scripts is proven more than once
 * (the count of those depends on the histories, which a wallets file does not describe).
 */
export const AT_LEAST: Partial<Record<keyof typeof SCAN, readonly string[]>> = { bdk: ['blockchain.transaction.get_merkle'] };

/** Calls (batch items counted one by one) per method of one full sync, by workload. */
export function fullSyncCalls(used: Record<WalletChain, number>, txs: number, confirmedTxs: number): FullSync {
  const usedAll = used.receive + used.change;
  const scannedAll = (workload: WorkloadName) => {
    const scanned = scriptsScanned(workload, used);
    return scanned.receive + scanned.change;
  };
  return {
    electrum: {
      'blockchain.scripthash.subscribe': scannedAll('electrum'),
      'blockchain.scripthash.get_history': usedAll,
      'blockchain.transaction.get': txs,
      'blockchain.transaction.get_merkle': confirmedTxs,
    },
    sparrow: {
      'blockchain.scripthash.subscribe': scannedAll('sparrow'),
      'blockchain.scripthash.get_history': usedAll,
      'blockchain.transaction.get': txs,
    },
    bdk: {
      'blockchain.scripthash.get_history': scannedAll('bdk'),
      'blockchain.transaction.get': txs,
      'blockchain.transaction.get_merkle': confirmedTxs,
    },
  };
}
