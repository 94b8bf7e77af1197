/**
 * What the wallet calls ask for each address, from the dataset's chain facts (the lab's manifest:
 * src/dataset/chain-facts.ts), never from the measured servers' own answers, so a server cannot
 * pass the check by agreeing with itself.
 *
 * One transaction per address, the same in every pass: the middle of its confirmed history
 * (ordered by height, then txid). An address's passes then repeat one call, so its median is the
 * median of one call, and across addresses the transaction's size and its place in the history
 * vary with the history's length (what the report's charts plot). `header` asks for that
 * transaction's block.
 */
import type { ChainFacts, DatasetLine, HistoryEntry } from '../core/dataset-line';
import { UserError } from '../core/user-error';

export interface WalletSubject {
  txid: string;
  height: number;
  /** The header at `height` (80 bytes, hex), as the chain facts hold it. */
  header: string;
  /** The address's get_mempool entries (height 0, or -1 with an unconfirmed input). */
  mempool: HistoryEntry[];
}

export function walletSubjects(lines: readonly DatasetLine[], facts: ChainFacts): WalletSubject[] {
  const missing: string[] = [];
  const subjects = lines.map((line) => {
    const who = line.address ?? line.scripthash;
    const history = facts.histories.get(line.scripthash);
    const confirmed = (history ?? []).filter((h) => h.height > 0).sort((a, b) => a.height - b.height || (a.tx_hash < b.tx_hash ? -1 : 1));
    const chosen = confirmed[Math.floor((confirmed.length - 1) / 2)];
    const header = chosen ? facts.headers[chosen.height] : undefined;
    if (!history) missing.push(`${who}: no history`);
    else if (!chosen) missing.push(`${who}: no confirmed transaction`);
    else if (typeof header !== 'string') missing.push(`${who}: no header at height ${chosen.height}`);
    if (!chosen || typeof header !== 'string') return null;
    return { txid: chosen.tx_hash, height: chosen.height, header, mempool: (history ?? []).filter((h) => h.height <= 0) };
  });
  if (missing.length) throw new UserError(`the dataset's manifest cannot serve the wallet calls for ${missing.length} address(es): ${missing.slice(0, 3).join('; ')}`);
  return subjects as WalletSubject[];
}
