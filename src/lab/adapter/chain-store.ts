/**
 * The adapter's copy of btcd's active chain in Core's serialization: every block's raw bytes, its
 * 80-byte header, and where each transaction's bytes sit inside it. Servers ask for the same blocks
 * and transactions over and over (electrs 0.12 fetches every transaction of every history it
 * answers as a `/rest/blockpart/` slice), so these answers come from here without a round trip to
 * btcd. btcd stays the authority: the store only ever holds what btcd said, catches up with btcd's
 * tip (at start, after every mining call the adapter forwards, and once a second for blocks mined
 * elsewhere), unwinds blocks that left btcd's active chain, and anything it does not hold (a block
 * above its tip, a mempool transaction) is asked of btcd as before.
 */
import * as bitcoin from 'bitcoinjs-lib';
import type { BtcdClient } from './btcd-client';
import { compactSizeAt } from './bytes';

export interface StoredBlock {
  hash: string;
  height: number;
  raw: Buffer;
}

interface TxSpan {
  block: StoredBlock;
  start: number;
  end: number;
}

const HEADER_BYTES = 80;
const CHUNK = 50; // blocks per batch request to btcd

export class ChainStore {
  private readonly byHash = new Map<string, StoredBlock>();
  private readonly chain: StoredBlock[] = []; // the active chain by height
  private readonly txSpans = new Map<string, TxSpan>();
  private running: Promise<number> | null = null;

  constructor(private readonly btcd: BtcdClient) {}

  /** Height of the highest stored block (-1 before the genesis block is stored). */
  get height(): number {
    return this.chain.length - 1;
  }

  /** Hash of the active chain's block at `height`, if stored. */
  hashAt(height: number): string | undefined {
    return this.chain[height]?.hash;
  }

  block(hash: string): StoredBlock | undefined {
    return this.byHash.get(hash);
  }

  header(hash: string): Buffer | undefined {
    return this.byHash.get(hash)?.raw.subarray(0, HEADER_BYTES);
  }

  /** A confirmed transaction's serialization (with witness, as btcd and Core serve it). */
  tx(txid: string): Buffer | undefined {
    const s = this.txSpans.get(txid);
    return s && s.block.raw.subarray(s.start, s.end);
  }

  /** Catches up with btcd's tip; concurrent callers share one pass. Returns the stored height. */
  sync(): Promise<number> {
    if (!this.running) {
      this.running = this.catchUp().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  /**
   * A pass begun after this call, for a caller that has just added a block: a pass already running
   * may have read btcd's tip before that block, so it is waited for and another is begun (callers
   * meanwhile share that one).
   */
  async syncSince(): Promise<number> {
    if (this.running) await this.running.catch(() => undefined);
    return this.sync();
  }

  private async catchUp(): Promise<number> {
    const tip = await this.btcd.get<number>('getblockcount');
    await this.unwindStale(tip);
    while (this.height < tip) {
      const from = this.height + 1;
      const to = Math.min(tip, from + CHUNK - 1);
      const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const hashes = await this.btcd.getMany<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
      const hexes = await this.btcd.getMany<string>(hashes.map((h) => ({ method: 'getblock', params: [h, 0] })));
      for (let i = 0; i < hashes.length; i++) {
        const raw = Buffer.from(hexes[i], 'hex');
        // A reorg between the two batches: stop here, the next sync unwinds and retries.
        if (this.height >= 0 && previousHash(raw) !== this.chain[this.height].hash) return this.height;
        this.add({ hash: hashes[i], height: heights[i], raw });
      }
    }
    return this.height;
  }

  private add(b: StoredBlock): void {
    this.chain.push(b);
    this.byHash.set(b.hash, b);
    for (const span of transactionSpans(b.raw)) this.txSpans.set(span.txid, { block: b, start: span.start, end: span.end });
  }

  /** Drops stored blocks that are no longer on btcd's active chain. */
  private async unwindStale(tip: number): Promise<void> {
    while (this.height >= 0) {
      const h = this.height;
      if (h <= tip) {
        const o = await this.btcd.call('getblockhash', [h]);
        if (!o.error && o.result === this.chain[h].hash) return;
      }
      const b = this.chain.pop()!;
      this.byHash.delete(b.hash);
      for (const span of transactionSpans(b.raw)) {
        if (this.txSpans.get(span.txid)?.block === b) this.txSpans.delete(span.txid);
      }
    }
  }
}

/** The block's `hashPrevBlock` (header bytes 4..36), in display order. */
function previousHash(raw: Buffer): string {
  return Buffer.from(raw.subarray(4, 36)).reverse().toString('hex');
}

/** Each transaction's txid and byte range in a serialized block (header, CompactSize count, txs). */
export function transactionSpans(raw: Buffer): Array<{ txid: string; start: number; end: number; tx: bitcoin.Transaction }> {
  const { value: count, next } = compactSizeAt(raw, HEADER_BYTES);
  const spans = [];
  let at = next;
  for (let i = 0; i < count; i++) {
    // bitcoinjs reads one transaction and leaves the block's remaining bytes alone when not strict.
    const tx = bitcoin.Transaction.fromBuffer(raw.subarray(at), true);
    const end = at + tx.byteLength();
    spans.push({ txid: tx.getId(), start: at, end, tx });
    at = end;
  }
  if (at !== raw.length) throw new Error(`block of ${raw.length} bytes has ${raw.length - at} bytes after its ${count} transactions`);
  return spans;
}
