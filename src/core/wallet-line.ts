/**
 * A wallet as every stage sees it (one line of a wallets JSONL file): its scripts on the receive
 * and change chains, in derivation order, with the unused scripts a gap-limit scan also queries,
 * and what a full sync must find. The lab generator writes real BIP32 wallets; `dataset wallets`
 * writes synthetic ones built from a dataset's addresses. Parsing and writing stay in src/dataset/wallet-file.ts.
 */
import type { AddressType } from './dataset-line';
import type { WalletChain } from './wallet-chain';
import type { FullSync } from './wallet-scan';

export interface WalletScript {
  address: string | null; // null for padding scripts of a synthetic wallet (no address behind them)
  scripthash: string;
}

export interface WalletLine {
  wallet: string; // unique name within the file
  /** lab: BIP32 keys the lab generator derived and used; synthetic: dataset addresses grouped. */
  origin: 'lab' | 'synthetic';
  type: AddressType;
  /** Output descriptors of both chains (lab wallets), for importing into a real wallet. */
  descriptors?: Record<WalletChain, string>;
  /** Unused scripts listed after the last used one on each chain. */
  gap: number;
  chains: Record<WalletChain, WalletScript[]>;
  expected: {
    /** Distinct transactions touching the wallet; for a synthetic wallet only an upper bound. */
    txCount: number;
    txCountExact: boolean;
    balance: { confirmed: number; unconfirmed: number };
    usedScripts: Record<WalletChain, number>;
    /**
     * Calls per method a full sync by each workload makes (src/core/wallet-scan.ts); transactions
     * and proofs are upper bounds where the transaction count is.
     */
    fullSync: FullSync;
  };
}

/** A wallets file as read: its lines and what identifies the file (stored with each run). */
export interface LoadedWallets {
  path: string;
  id: string; // file name without .jsonl
  hash: string; // sha256 of the file's bytes
  wallets: WalletLine[];
}
