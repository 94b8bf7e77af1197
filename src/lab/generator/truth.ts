/**
 * What an Electrum server must answer for one script, in the protocol's own terms (protocol docs,
 * blockchain.scripthash.get_balance / get_history / listunspent): computed once from our ledger
 * and once from an independent walk of the node (walk.ts), then compared.
 *
 * ElectrumX 2.0 and electrs 0.12 agree on the mempool rules used here (read in their sources):
 * get_balance.confirmed sums confirmed unspent outputs, ignoring mempool spends; unconfirmed is the
 * mempool delta (mempool outputs minus confirmed or mempool outputs spent in the mempool);
 * listunspent lists confirmed and mempool outputs minus everything spent, mempool ones at height 0;
 * get_history gives mempool transactions height 0, or -1 when they spend an unconfirmed output.
 */
import { createHash } from 'node:crypto';
import type { HistoryEntry } from '../../core/dataset-line';
import type { Owner } from './keys';
import type { Ledger, LedgerTx } from './ledger';

export interface ScriptTruth {
  scripthash: string;
  txCount: number; // confirmed transactions touching the script (funding or spending)
  mempoolTxCount: number;
  utxoCount: number; // confirmed outputs listunspent reports: unspent on chain and in the mempool
  balance: { confirmed: number; unconfirmed: number };
  listunspent: string[]; // "tx_hash:tx_pos:value:height", sorted
  historyDigest: string; // historyDigest() of the full get_history answer
  /** The full get_history answer in canonicalHistory() order: what the bench's wallet calls ask for. */
  history: HistoryItem[];
}

export type HistoryItem = HistoryEntry;

/**
 * get_history's order (protocol docs: confirmed by height, then the mempool), ties by txid: servers
 * differ in their order within a block, and the manifest's bytes must depend on the seed alone.
 */
export function canonicalHistory(items: HistoryItem[]): HistoryItem[] {
  const rank = (h: number) => (h > 0 ? h : Number.MAX_SAFE_INTEGER - h);
  return [...items].sort((a, b) => rank(a.height) - rank(b.height) || (a.tx_hash < b.tx_hash ? -1 : a.tx_hash > b.tx_hash ? 1 : 0));
}

/** Order-free fingerprint of a get_history answer (servers differ in their order within a block). */
export function historyDigest(items: HistoryItem[]): string {
  const lines = items.map((i) => `${i.tx_hash}:${i.height}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

export const utxoKey = (txHash: string, pos: number, value: number, height: number): string =>
  `${txHash}:${pos}:${value}:${height}`;

export function truthFromLedger(ledger: Ledger, owners: Owner[]): Map<string, ScriptTruth> {
  const wanted = new Set(owners);
  const touching = new Map<Owner, LedgerTx[]>();
  for (const tx of ledger.txs.values()) {
    const seen = new Set<Owner>();
    for (const c of tx.inputs) if (wanted.has(c.owner)) seen.add(c.owner);
    for (const o of tx.outputs) if (o.owner && wanted.has(o.owner)) seen.add(o.owner);
    for (const o of seen) {
      const list = touching.get(o);
      if (list) list.push(tx);
      else touching.set(o, [tx]);
    }
  }
  const inMempool = (txid: string): boolean => ledger.txs.get(txid)?.height === null;

  const out = new Map<string, ScriptTruth>();
  for (const owner of owners) {
    const txs = touching.get(owner) ?? [];
    const history: HistoryItem[] = txs.map((t) => ({
      tx_hash: t.txid,
      height: t.height ?? (t.inputs.some((c) => inMempool(c.txid)) ? -1 : 0),
    }));
    let utxoCount = 0;
    let confirmed = 0;
    let unconfirmed = 0;
    const listunspent: string[] = [];
    for (const c of ledger.coinsOf(owner)) {
      const spentOnChain = c.spentBy !== null && !inMempool(c.spentBy);
      if (c.height !== null && !spentOnChain) confirmed += c.value;
      if (c.height !== null && c.spentBy === null) utxoCount++;
      if (c.height === null) unconfirmed += c.value;
      if (c.spentBy !== null && inMempool(c.spentBy)) unconfirmed -= c.value;
      if (c.spentBy === null) listunspent.push(utxoKey(c.txid, c.vout, c.value, c.height ?? 0));
    }
    out.set(owner.scripthash, {
      scripthash: owner.scripthash,
      txCount: txs.filter((t) => t.height !== null).length,
      mempoolTxCount: txs.filter((t) => t.height === null).length,
      utxoCount,
      balance: { confirmed, unconfirmed },
      listunspent: listunspent.sort(),
      historyDigest: historyDigest(history),
      history: canonicalHistory(history),
    });
  }
  return out;
}

/** Human-readable differences between two truths of the same scripts; empty when they agree. */
export function diffTruths(expected: Map<string, ScriptTruth>, actual: Map<string, ScriptTruth>, limit = 20): string[] {
  const diffs: string[] = [];
  for (const [sh, e] of expected) {
    const a = actual.get(sh);
    if (!a) {
      diffs.push(`${sh}: missing from the actual side`);
      continue;
    }
    for (const k of ['txCount', 'mempoolTxCount', 'utxoCount', 'historyDigest'] as const) {
      if (e[k] !== a[k]) diffs.push(`${sh}: ${k} expected ${e[k]}, got ${a[k]}`);
    }
    if (e.balance.confirmed !== a.balance.confirmed || e.balance.unconfirmed !== a.balance.unconfirmed) {
      diffs.push(`${sh}: balance expected ${JSON.stringify(e.balance)}, got ${JSON.stringify(a.balance)}`);
    }
    if (e.listunspent.join() !== a.listunspent.join()) {
      diffs.push(`${sh}: listunspent differs (expected ${e.listunspent.length} entries, got ${a.listunspent.length})`);
    }
    if (diffs.length >= limit) break;
  }
  return diffs;
}
