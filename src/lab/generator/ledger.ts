/**
 * Our own record of every transaction the generator made and every output it can spend. btcd has
 * no wallet, so prevout values and scripts (which signing needs) and the ground truth both come
 * from here; the chain walk in walk.ts checks this record independently.
 */
import type { Owner } from './keys';

export interface Coin {
  txid: string;
  vout: number;
  value: number; // sats
  owner: Owner;
  height: number | null; // null while in the mempool
  spentBy: string | null;
}

export interface LedgerTx {
  txid: string;
  hex: string;
  height: number | null;
  inputs: Coin[];
  outputs: Array<{ owner: Owner | null; value: number }>;
}

export const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

export class Ledger {
  readonly txs = new Map<string, LedgerTx>();
  readonly coins = new Map<string, Coin>();
  private readonly coinsByOwner = new Map<Owner, Coin[]>();
  private readonly rawByTxid = new Map<string, Uint8Array>(); // includes coinbases we spend

  /** A transaction we did not build but will spend from (a coinbase). */
  addForeign(txid: string, hex: string, height: number, outputs: Array<{ owner: Owner | null; value: number }>): void {
    this.rawByTxid.set(txid, Buffer.from(hex, 'hex'));
    outputs.forEach((o, vout) => {
      if (o.owner) this.addCoin({ txid, vout, value: o.value, owner: o.owner, height, spentBy: null });
    });
  }

  record(tx: Omit<LedgerTx, 'height'>): LedgerTx {
    const entry: LedgerTx = { ...tx, height: null };
    this.txs.set(tx.txid, entry);
    this.rawByTxid.set(tx.txid, Buffer.from(tx.hex, 'hex'));
    for (const c of tx.inputs) {
      if (c.spentBy) throw new Error(`double spend of ${outpointKey(c.txid, c.vout)} by ${tx.txid} (already ${c.spentBy})`);
      c.spentBy = tx.txid;
    }
    tx.outputs.forEach((o, vout) => {
      if (o.owner) this.addCoin({ txid: tx.txid, vout, value: o.value, owner: o.owner, height: null, spentBy: null });
    });
    return entry;
  }

  confirm(txid: string, height: number): void {
    const tx = this.txs.get(txid);
    if (!tx) return; // a coinbase or someone else's transaction
    tx.height = height;
    tx.outputs.forEach((o, vout) => {
      if (o.owner) this.coins.get(outpointKey(txid, vout))!.height = height;
    });
  }

  raw(txid: string): Uint8Array {
    const raw = this.rawByTxid.get(txid);
    if (!raw) throw new Error(`no raw transaction recorded for ${txid}`);
    return raw;
  }

  /** Confirmed, unspent coins of one owner, oldest first. */
  spendable(owner: Owner): Coin[] {
    return this.coinsOf(owner).filter((c) => c.height !== null && c.spentBy === null);
  }

  coinsOf(owner: Owner): Coin[] {
    return this.coinsByOwner.get(owner) ?? [];
  }

  private addCoin(c: Coin): void {
    this.coins.set(outpointKey(c.txid, c.vout), c);
    const list = this.coinsByOwner.get(c.owner);
    if (list) list.push(c);
    else this.coinsByOwner.set(c.owner, [c]);
  }

  unconfirmedTxids(): string[] {
    return [...this.txs.values()].filter((t) => t.height === null).map((t) => t.txid);
  }
}
