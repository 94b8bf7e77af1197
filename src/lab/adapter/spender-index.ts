/**
 * Which confirmed transaction spends each outpoint: the data Bitcoin Core 31's `txospenderindex`
 * holds and `gettxspendingprevout` reads with `mempool_only: false`. btcd's gettxspendingprevout
 * only looks at its mempool, so the adapter builds this index itself from the blocks of its chain
 * store (each input's txid:vout in the raw transaction). It catches up before every answer and
 * unwinds blocks that left the active chain.
 */
import type { ChainStore, StoredBlock } from './chain-store';
import { transactionSpans } from './chain-store';

export interface ConfirmedSpend {
  spendingtxid: string;
  blockhash: string;
}

export class SpenderIndex {
  private readonly spends = new Map<string, ConfirmedSpend>();
  private readonly hashes: string[] = []; // indexed block hash by height
  private readonly keysByHeight: string[][] = [];

  constructor(private readonly store: ChainStore) {}

  /** Height the index has reached (-1 before the genesis block). */
  get height(): number {
    return this.hashes.length - 1;
  }

  lookup(txid: string, vout: number): ConfirmedSpend | undefined {
    return this.spends.get(`${txid}:${vout}`);
  }

  /** Catches up with btcd's tip (through the store). Returns the indexed height. */
  async sync(): Promise<number> {
    await this.store.sync();
    while (this.height >= 0 && this.store.hashAt(this.height) !== this.hashes[this.height]) {
      for (const key of this.keysByHeight[this.height]) this.spends.delete(key);
      this.hashes.pop();
      this.keysByHeight.pop();
    }
    while (this.height < this.store.height) this.add(this.store.block(this.store.hashAt(this.height + 1)!)!);
    return this.height;
  }

  private add(b: StoredBlock): void {
    const keys: string[] = [];
    transactionSpans(b.raw).forEach(({ txid, tx }, i) => {
      if (i === 0) return; // the coinbase spends nothing
      for (const input of tx.ins) {
        const key = `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`;
        this.spends.set(key, { spendingtxid: txid, blockhash: b.hash });
        keys.push(key);
      }
    });
    this.hashes.push(b.hash);
    this.keysByHeight.push(keys);
  }
}
