/**
 * Bitcoin Core's mempool entry shape (getmempoolentry, getrawmempool verbose) computed from btcd's
 * `getrawmempool true` (size, vsize, weight, fee, time, height, depends) and its transactions.
 * Ancestor/descendant sets are the transitive closure of btcd's `depends` graph, self included, as
 * Core counts them; BIP125 signalling is read from the inputs' nSequence (BIP125: any input
 * nSequence < 0xfffffffe, or an unconfirmed ancestor that signals).
 */
import type { BtcdClient } from './btcd-client';
import { btcToSats, satsToBtc } from './bytes';
import type { ChainData } from './chain-data';

export interface BtcdMempoolEntry {
  size: number;
  vsize: number;
  weight: number;
  fee: number; // BTC
  time: number;
  height: number;
  depends: string[];
}

export type BtcdMempool = Record<string, BtcdMempoolEntry>;

export async function btcdMempool(btcd: BtcdClient): Promise<BtcdMempool> {
  return btcd.get<BtcdMempool>('getrawmempool', [true]);
}

export interface CoreMempoolEntry {
  vsize: number;
  weight: number;
  time: number;
  height: number;
  descendantcount: number;
  descendantsize: number;
  ancestorcount: number;
  ancestorsize: number;
  wtxid: string;
  fees: { base: number; modified: number; ancestor: number; descendant: number };
  depends: string[];
  spentby: string[];
  'bip125-replaceable': boolean;
}

/** Core-shaped entries for `txids` (all must be in `pool`). */
export async function coreEntries(data: ChainData, pool: BtcdMempool, txids: string[]): Promise<Map<string, CoreMempoolEntry>> {
  const children = new Map<string, string[]>();
  for (const [id, e] of Object.entries(pool)) {
    for (const parent of e.depends) {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent)!.push(id);
    }
  }
  const closure = (start: string, next: (id: string) => string[]): Set<string> => {
    const seen = new Set<string>([start]);
    const stack = [start];
    while (stack.length > 0) {
      for (const n of next(stack.pop()!)) {
        if (pool[n] && !seen.has(n)) {
          seen.add(n);
          stack.push(n);
        }
      }
    }
    return seen;
  };
  const ancestorsOf = new Map(txids.map((id) => [id, closure(id, (x) => pool[x]?.depends ?? [])]));
  const txs = await data.txs(new Set([...ancestorsOf.values()].flatMap((s) => [...s])));
  const signals = (id: string) => txs.get(id)!.sequences.some((seq) => seq < 0xfffffffe);

  const result = new Map<string, CoreMempoolEntry>();
  for (const id of txids) {
    const e = pool[id];
    const ancestors = ancestorsOf.get(id)!;
    const descendants = closure(id, (x) => children.get(x) ?? []);
    const sum = (set: Set<string>, f: (x: BtcdMempoolEntry) => number) => [...set].reduce((n, x) => n + f(pool[x]), 0);
    const feeSum = (set: Set<string>) => [...set].reduce((n, x) => n + btcToSats(pool[x].fee), 0n);
    const base = satsToBtc(btcToSats(e.fee));
    result.set(id, {
      vsize: e.vsize,
      weight: e.weight,
      time: e.time,
      height: e.height,
      descendantcount: descendants.size,
      descendantsize: sum(descendants, (x) => x.vsize),
      ancestorcount: ancestors.size,
      ancestorsize: sum(ancestors, (x) => x.vsize),
      wtxid: txs.get(id)!.wtxid,
      fees: { base, modified: base, ancestor: satsToBtc(feeSum(ancestors)), descendant: satsToBtc(feeSum(descendants)) },
      depends: [...e.depends],
      spentby: [...(children.get(id) ?? [])].sort(),
      'bip125-replaceable': [...ancestors].some(signals),
    });
  }
  return result;
}
