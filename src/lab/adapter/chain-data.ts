/**
 * Reads of btcd's chain for the adapter's own answers: raw blocks, headers, transactions with their
 * exact outputs. Everything comes from btcd: blocks of the active chain from the chain store (which
 * holds what btcd said), the rest from btcd itself; caches only hold what btcd already said, keyed
 * by hash (a block's or transaction's bytes never change for its hash).
 */
import * as bitcoin from 'bitcoinjs-lib';
import { BtcdClient, RpcFailure, unwrap } from './btcd-client';
import type { ChainStore } from './chain-store';

// btcd: "Block not found" / "No information available about transaction".
const NOT_FOUND = -5;

export interface TxOutput {
  value: bigint; // satoshis, from the raw transaction (exact, unlike the JSON's BTC float)
  script: Buffer;
  scriptPubKey: unknown; // btcd's decoded form, passed through in JSON answers
}

export interface TxInfo {
  txid: string;
  coinbase: boolean;
  blockhash: string | null; // null while in the mempool
  outputs: TxOutput[];
  sequences: number[];
  vsize: number;
  wtxid: string;
}

export interface HeaderInfo {
  hash: string;
  height: number;
  time: number;
  confirmations: number;
}

class ByteBudgetCache<V> {
  private readonly map = new Map<string, { v: V; size: number }>();
  private used = 0;
  constructor(private readonly budget: number) {}

  get(k: string): V | undefined {
    const e = this.map.get(k);
    if (!e) return undefined;
    this.map.delete(k);
    this.map.set(k, e);
    return e.v;
  }

  set(k: string, v: V, size: number): void {
    const old = this.map.get(k);
    if (old) this.used -= old.size;
    this.map.delete(k);
    this.map.set(k, { v, size });
    this.used += size;
    for (const [key, e] of this.map) {
      if (this.used <= this.budget) break;
      this.map.delete(key);
      this.used -= e.size;
    }
  }
}

export class ChainData {
  private readonly blocks = new ByteBudgetCache<Buffer>(64 * 1024 * 1024);
  private readonly headers = new ByteBudgetCache<Buffer>(16 * 1024 * 1024);
  private readonly confirmedTxs = new ByteBudgetCache<TxInfo>(32 * 1024 * 1024);
  private readonly heightByHash = new Map<string, number>();

  constructor(
    readonly btcd: BtcdClient,
    readonly store: ChainStore,
  ) {}

  /** The block's serialization, or null if btcd does not know the hash. */
  async rawBlock(hash: string): Promise<Buffer | null> {
    const key = hash.toLowerCase();
    const hit = this.store.block(key)?.raw ?? this.blocks.get(key);
    if (hit) return hit;
    const o = await this.btcd.call('getblock', [key, 0]);
    if (o.error?.code === NOT_FOUND) return null;
    const raw = Buffer.from(unwrap<string>(o), 'hex');
    this.blocks.set(key, raw, raw.length);
    return raw;
  }

  /**
   * The serialized headers of up to `count` active-chain blocks from `hash` on (Core's
   * `/rest/headers/`): empty for an unknown block or one off the active chain.
   */
  async activeHeaders(hash: string, count: number): Promise<Buffer[]> {
    const key = hash.toLowerCase();
    const stored = this.store.block(key);
    if (stored) {
      const out: Buffer[] = [];
      for (let h = stored.height; h < stored.height + count && h <= this.store.height; h++) out.push(this.store.header(this.store.hashAt(h)!)!);
      return out;
    }
    const info = await this.headerInfo(key);
    if (!info || !(await this.inActiveChain(info))) return [];
    const tip = await this.btcd.get<number>('getblockcount');
    return this.headerBytes(await this.activeHashes(info.height, Math.min(tip, info.height + count - 1)));
  }

  /** Hashes of the active chain at heights [from, to]. */
  private async activeHashes(from: number, to: number): Promise<string[]> {
    if (to < from) return [];
    const calls = [];
    for (let h = from; h <= to; h++) calls.push({ method: 'getblockhash', params: [h] });
    return this.btcd.getMany<string>(calls);
  }

  /** Height and time of a known block, or null for an unknown hash. */
  private async headerInfo(hash: string): Promise<HeaderInfo | null> {
    const o = await this.btcd.call('getblockheader', [hash, true]);
    if (o.error?.code === NOT_FOUND) return null;
    return unwrap<HeaderInfo>(o);
  }

  /** Heights of known blocks (batch getblockheader); a block's height never changes for its hash. */
  async heights(hashes: Iterable<string>): Promise<Map<string, number>> {
    const want = [...new Set(hashes)];
    for (const h of want) {
      const stored = this.store.block(h);
      if (stored) this.heightByHash.set(h, stored.height);
    }
    const missing = want.filter((h) => !this.heightByHash.has(h));
    if (missing.length > 0) {
      const infos = await this.btcd.getMany<HeaderInfo>(missing.map((h) => ({ method: 'getblockheader', params: [h, true] })));
      missing.forEach((h, i) => this.heightByHash.set(h, infos[i].height));
    }
    return new Map(want.map((h) => [h, this.heightByHash.get(h) as number]));
  }

  /** True if `hash` is the active chain's block at its height (Core's `active_chain.Contains`). */
  private async inActiveChain(info: HeaderInfo): Promise<boolean> {
    const o = await this.btcd.call('getblockhash', [info.height]);
    return !o.error && o.result === info.hash;
  }

  /** The 80-byte serialized headers of `hashes`, in order. */
  private async headerBytes(hashes: string[]): Promise<Buffer[]> {
    const missing = hashes.filter((h) => !this.headers.get(h));
    if (missing.length > 0) {
      const hex = await this.btcd.getMany<string>(missing.map((h) => ({ method: 'getblockheader', params: [h, false] })));
      missing.forEach((h, i) => this.headers.set(h, Buffer.from(hex[i], 'hex'), 80));
    }
    return hashes.map((h) => this.headers.get(h) as Buffer);
  }

  /** Transactions by txid (confirmed via btcd's txindex, or in its mempool); throws if one is unknown. */
  async txs(txids: Iterable<string>): Promise<Map<string, TxInfo>> {
    const out = new Map<string, TxInfo>();
    const missing: string[] = [];
    for (const id of new Set(txids)) {
      const hit = this.confirmedTxs.get(id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    const CHUNK = 500;
    for (let i = 0; i < missing.length; i += CHUNK) {
      const ids = missing.slice(i, i + CHUNK);
      const outcomes = await this.btcd.batch(ids.map((id) => ({ method: 'getrawtransaction', params: [id, 1] })));
      outcomes.forEach((o, j) => {
        if (o.error) throw new RpcFailure(o.error.code, `${ids[j]}: ${o.error.message}`);
        const info = toTxInfo(o.result as BtcdVerboseTx);
        out.set(ids[j], info);
        if (info.blockhash) this.confirmedTxs.set(ids[j], info, 64 + info.outputs.reduce((n, x) => n + x.script.length + 48, 0));
      });
    }
    return out;
  }
}

interface BtcdVerboseTx {
  txid: string;
  hash: string;
  hex: string;
  vsize: number;
  blockhash?: string;
  vin: Array<{ coinbase?: string; sequence: number }>;
  vout: Array<{ n: number; scriptPubKey: unknown }>;
}

function toTxInfo(v: BtcdVerboseTx): TxInfo {
  const tx = bitcoin.Transaction.fromHex(v.hex);
  return {
    txid: v.txid,
    coinbase: v.vin.length > 0 && v.vin[0].coinbase !== undefined,
    blockhash: v.blockhash ?? null,
    outputs: tx.outs.map((o, n) => ({ value: o.value, script: Buffer.from(o.script), scriptPubKey: v.vout[n]?.scriptPubKey })),
    sequences: tx.ins.map((i) => i.sequence),
    vsize: v.vsize,
    wtxid: v.hash,
  };
}
