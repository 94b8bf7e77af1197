/**
 * BDK (bitcoindevkit/bdk, crate bdk_electrum, over the electrum-client crate), read in
 * bdk_electrum_client.rs (full_scan): no courtesy calls (ElectrumX refuses any request before a
 * server.version, so the connection sends that one, as a client must); the tip from one
 * headers subscription and the last 8 headers; then per keychain, JSON batches of get_history over
 * consecutive scripts until `stop_gap` of them in a row are empty; a transaction.get per
 * transaction not yet fetched, one at a time (the client blocks on each call); finally one batch of
 * block headers for the heights seen and one batch of every Merkle proof. No subscriptions: a BDK
 * wallet polls.
 *
 * stop_gap and batch_size are the caller's choice (the crate has no default): 20 and 10 here.
 */
import type { WalletChain, WalletLine } from '../../core/wallet-line';
import { SCAN } from '../../core/wallet-scan';
import type { BatchItem } from '../../electrum/client';
import type { ElectrumError } from '../../electrum/errors';
import type { Findings } from '../findings';
import type { WalletSession } from '../session';
import { confirmedTxs, historyOf, scriptAt, type Workload } from './workload';

const { stopGap: STOP_GAP, batch: BATCH_SIZE } = SCAN.bdk;

export const bdkWorkload: Workload = {
  name: 'bdk',
  summary: 'BDK: server.version only, batched get_history to a stop gap of 20, transactions one at a time, headers and Merkle proofs in one batch each',
  maxInFlight: 1,
  client: { clientName: 'bdk (electrum-bench)' },
  subscribes: false,
  async sync(s, w, found) {
    const tip = (await s.call<{ height: number }>('headers', 'blockchain.headers.subscribe')).height;
    await s.call('block-headers', 'blockchain.block.headers', [Math.max(0, tip - 7), 8]);
    for (const chain of ['receive', 'change'] as const) await scanChain(s, w, chain, found);
    const confirmed = confirmedTxs(found);
    const heights = [...new Set(confirmed.map(([, h]) => h))];
    if (heights.length) okAll(await s.batch('block-headers', 'blockchain.block.header', heights.map((h) => [h])));
    if (confirmed.length) okAll(await s.batch('proofs', 'blockchain.transaction.get_merkle', confirmed.map(([t, h]) => [t, h])));
  },
};

async function scanChain(s: WalletSession, w: WalletLine, chain: WalletChain, found: Findings): Promise<void> {
  let emptyInARow = 0;
  for (let start = 0; emptyInARow < STOP_GAP; start += BATCH_SIZE) {
    const scripts = Array.from({ length: BATCH_SIZE }, (_, k) => scriptAt(w, chain, start + k).scripthash);
    const answers = okAll(await s.batch('history', 'blockchain.scripthash.get_history', scripts.map((sh) => [sh])));
    for (let k = 0; k < scripts.length && emptyInARow < STOP_GAP; k++) {
      const history = historyOf(answers[k], scripts[k]);
      if (history.length === 0) {
        emptyInARow++;
        continue;
      }
      emptyInARow = 0;
      found.histories.set(scripts[k], history);
      for (const e of history) {
        if (found.rawTxs.has(e.tx_hash)) continue;
        found.rawTxs.set(e.tx_hash, await s.call<string>('transactions', 'blockchain.transaction.get', [e.tx_hash]));
      }
    }
  }
}

function okAll(items: BatchItem[]): unknown[] {
  const failed = items.find((i): i is { ok: false; error: ElectrumError } => !i.ok);
  if (failed) throw failed.error;
  return items.map((i) => (i as { ok: true; result: unknown }).result);
}
