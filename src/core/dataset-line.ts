/**
 * The vocabulary every stage shares about an address: its script type and the dataset line that
 * describes it. `p2sh` is any P2SH output seen on a chain (its script cannot show what it wraps);
 * only the lab, which built its own, knows `p2sh-p2wpkh`. `nonstandard` lines are kept by
 * scripthash with no address. Parsing and writing lines stays in src/dataset/line.ts.
 */
export const ADDRESS_TYPES = ['p2pkh', 'p2sh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2tr', 'nonstandard'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

export function isAddressType(s: string): s is AddressType {
  return (ADDRESS_TYPES as readonly string[]).includes(s);
}

/**
 * One address as every stage sees it (a dataset line, JSONL): what the dataset recorded and the
 * bench verifies. Balances are in satoshis as of the tip recorded in the dataset's manifest.
 */
export interface DatasetLine {
  address: string | null; // null for a nonstandard script kept by scripthash only
  scripthash: string; // Electrum scripthash: sha256(scriptPubKey), byte-reversed, hex
  type: AddressType;
  txCount: number; // confirmed transactions
  utxoCount: number; // confirmed entries listunspent reports
  balance: { confirmed: number; unconfirmed: number };
}

/** One entry of a blockchain.scripthash.get_history answer: height 0 or -1 in the mempool. */
export interface HistoryEntry {
  tx_hash: string;
  height: number;
}

/**
 * What a dataset's source knows of the chain beyond the lines' counts (the lab's manifest holds
 * it; src/dataset/chain-facts.ts reads it): what the bench's wallet calls ask for and are checked
 * against.
 */
export interface ChainFacts {
  /** Each address's full get_history answer, by scripthash, confirmed entries by height. */
  histories: Map<string, HistoryEntry[]>;
  /** Block headers (80 bytes, hex) by height, genesis first. */
  headers: string[];
}

/** A whole dataset as read from its file (src/dataset/line.ts reads it). */
export interface LoadedDataset {
  path: string;
  id: string; // file name without .jsonl
  hash: string; // sha256 of the file's bytes
  lines: DatasetLine[];
  /** Present when the bench's wallet calls were asked for (src/dataset/chain-facts.ts). */
  chainFacts?: ChainFacts;
}
