/**
 * What a sync found, and the wallet's balance and transactions worked out from it the way a wallet
 * does: from the raw transactions it downloaded, not from get_balance. A server that answers a
 * history short, or a transaction wrong, shows up here as a mismatch with the wallets file.
 */
import * as bitcoin from 'bitcoinjs-lib';
import { scriptHashOfScript } from '../electrum/scripthash';
import { isConfirmedHeight } from '../core/confirmed';
import type { WalletLine } from '../core/wallet-line';
import { AT_LEAST } from '../core/wallet-scan';

export interface HistoryEntry {
  tx_hash: string;
  height: number;
}

export class Findings {
  readonly histories = new Map<string, HistoryEntry[]>();
  readonly rawTxs = new Map<string, string>();
  /** Scripts the connection is subscribed to (workloads that subscribe). */
  readonly subscribed = new Set<string>();

  /** Every transaction of every history, with its height (the first seen when servers disagree). */
  heights(): Map<string, number> {
    const out = new Map<string, number>();
    for (const h of this.histories.values()) for (const e of h) if (!out.has(e.tx_hash)) out.set(e.tx_hash, e.height);
    return out;
  }
}

export interface WalletFigures {
  txCount: number;
  balance: { confirmed: number; unconfirmed: number };
}

/** Balance from the downloaded transactions: outputs to the wallet's scripts not spent by its own. */
export function figuresOf(findings: Findings, scripthashes: Set<string>): WalletFigures {
  const heights = findings.heights();
  const outputs = new Map<string, { value: number; confirmed: boolean }>();
  const spends: Array<{ outpoint: string; confirmed: boolean }> = [];
  for (const [txid, height] of heights) {
    const hex = findings.rawTxs.get(txid);
    if (hex === undefined) continue; // a sync that failed to download it reports that separately
    const tx = bitcoin.Transaction.fromHex(hex);
    const confirmed = isConfirmedHeight(height);
    tx.outs.forEach((o, vout) => {
      if (scripthashes.has(scriptHashOfScript(o.script))) outputs.set(`${txid}:${vout}`, { value: Number(o.value), confirmed });
    });
    for (const i of tx.ins) spends.push({ outpoint: `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`, confirmed });
  }
  let confirmed = 0;
  let unconfirmed = 0;
  for (const o of outputs.values()) (o.confirmed ? (confirmed += o.value) : (unconfirmed += o.value));
  for (const s of spends) {
    const o = outputs.get(s.outpoint);
    if (!o) continue;
    // The protocol's get_balance: a confirmed output spent in the mempool still counts as
    // confirmed, with the spend as a negative unconfirmed amount.
    if (s.confirmed) confirmed -= o.value;
    else unconfirmed -= o.value;
  }
  return { txCount: heights.size, balance: { confirmed, unconfirmed } };
}

/**
 * Differences from what the wallets file expects; empty when the sync found exactly that. With
 * `asked` (calls per method the sync made), also the file's count of what a full sync by that
 * workload asks: transactions and proofs as an upper bound where the transaction count is one.
 */
export function mismatches(w: WalletLine, found: WalletFigures, missingTxs: number, asked?: { workload: string; calls: Map<string, number> }): string[] {
  const out: string[] = [];
  const e = w.expected;
  const plan = asked ? e.fullSync[asked.workload as keyof typeof e.fullSync] : undefined;
  for (const [method, want] of Object.entries(plan ?? {})) {
    const got = asked!.calls.get(method) ?? 0;
    if (AT_LEAST[asked!.workload as keyof typeof AT_LEAST]?.includes(method)) {
      if (e.txCountExact && got < want) out.push(`${method}: ${got} calls, a full sync asks at least ${want}`);
      continue;
    }
    const bound = !e.txCountExact && (method === 'blockchain.transaction.get' || method === 'blockchain.transaction.get_merkle');
    if (bound ? got > want : got !== want) out.push(`${method}: ${got} calls, a full sync asks ${bound ? 'at most ' : ''}${want}`);
  }
  if (e.txCountExact ? found.txCount !== e.txCount : found.txCount > e.txCount || (e.txCount > 0 && found.txCount === 0)) {
    out.push(`transactions: found ${found.txCount}, expected ${e.txCountExact ? '' : 'at most '}${e.txCount}`);
  }
  if (found.balance.confirmed !== e.balance.confirmed || found.balance.unconfirmed !== e.balance.unconfirmed) {
    out.push(`balance: found ${found.balance.confirmed}/${found.balance.unconfirmed} sat, expected ${e.balance.confirmed}/${e.balance.unconfirmed} (confirmed/unconfirmed)`);
  }
  if (missingTxs > 0) out.push(`${missingTxs} transactions of the histories were not downloaded`);
  return out;
}
