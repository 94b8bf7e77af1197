/**
 * Which confirmed transaction spends each outpoint: the data Bitcoin Core 31's `txospenderindex`
 * holds and `gettxspendingprevout` reads with `mempool_only: false`. btcd's gettxspendingprevout
 * only looks at its mempool, so the adapter builds this index itself by walking btcd's blocks
 * (getblock verbosity 2 lists each input's txid:vout). It catches up before every answer and
 * unwinds blocks that left the active chain.
 */
import type { BtcdClient } from './btcd-client';

export interface ConfirmedSpend {
  spendingtxid: string;
  blockhash: string;
}

interface BtcdBlockV2 {
  hash: string;
  previousblockhash?: string;
  tx: Array<{ txid: string; vin: Array<{ txid?: string; vout?: number; coinbase?: string }> }>;
}

const CHUNK = 50; // blocks per batch request to btcd

export class SpenderIndex {
  private readonly spends = new Map<string, ConfirmedSpend>();
  private readonly hashes: string[] = []; // indexed block hash by height
  private readonly keysByHeight: string[][] = [];
  private running: Promise<number> | null = null;

  constructor(private readonly btcd: BtcdClient) {}

  /** Height the index has reached (-1 before the genesis block). */
  get height(): number {
    return this.hashes.length - 1;
  }

  lookup(txid: string, vout: number): ConfirmedSpend | undefined {
    return this.spends.get(`${txid}:${vout}`);
  }

  /** Catches up with btcd's tip; concurrent callers share one pass. Returns the indexed height. */
  sync(): Promise<number> {
    if (!this.running) {
      this.running = this.catchUp().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async catchUp(): Promise<number> {
    const tip = await this.btcd.get<number>('getblockcount');
    await this.unwindStale(tip);
    while (this.height < tip) {
      const from = this.height + 1;
      const to = Math.min(tip, from + CHUNK - 1);
      const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const hashes = await this.btcd.getMany<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
      const blocks = await this.btcd.getMany<BtcdBlockV2>(hashes.map((h) => ({ method: 'getblock', params: [h, 2] })));
      for (const b of blocks) {
        // A reorg between the two batches: stop here, the next sync unwinds and retries.
        if (this.height >= 0 && b.previousblockhash !== this.hashes[this.height]) return this.height;
        this.add(b);
      }
    }
    return this.height;
  }

  private add(b: BtcdBlockV2): void {
    const keys: string[] = [];
    for (const tx of b.tx) {
      for (const vin of tx.vin) {
        if (vin.coinbase !== undefined || vin.txid === undefined || vin.vout === undefined) continue;
        const key = `${vin.txid}:${vin.vout}`;
        this.spends.set(key, { spendingtxid: tx.txid, blockhash: b.hash });
        keys.push(key);
      }
    }
    this.hashes.push(b.hash);
    this.keysByHeight.push(keys);
  }

  /** Drops indexed blocks that are no longer on btcd's active chain. */
  private async unwindStale(tip: number): Promise<void> {
    while (this.height >= 0) {
      const h = this.height;
      if (h <= tip) {
        const o = await this.btcd.call('getblockhash', [h]);
        if (!o.error && o.result === this.hashes[h]) return;
      }
      for (const key of this.keysByHeight[h]) this.spends.delete(key);
      this.hashes.pop();
      this.keysByHeight.pop();
    }
  }
}
