/**
 * BDK (bitcoindevkit/bdk, crate bdk_electrum 0.24 over the electrum-client crate, as PyPI's
 * bdkpython 3.1.1 runs it), read in bdk_electrum_client.rs (full_scan) and held to the real client
 * on the wire (test/wire-conformance.test.ts records both through one proxy):
 * - server.version with an empty client name (electrum-client sends "");
 * - the tip from one headers subscription, the last 8 headers, and the genesis header: a new
 *   wallet's only checkpoint is block 0, whose hash is checked against the server's to find where
 *   the two chains agree;
 * - per keychain, get_history over consecutive scripts in batches of 10 until `stop_gap` scripts in
 *   a row were empty, counted at the end of a batch; each batch written as 10 request lines at
 *   once (electrum-client's batches are lines, not a JSON array, which is why Esplora's electrs,
 *   refusing arrays, serves BDK); after each batch a transaction.get per transaction not yet
 *   fetched, one at a time (the client blocks on each call);
 * - at the end one batch of lines of block headers, one per height seen, and one of Merkle proofs:
 *   one per confirmed history entry of either keychain, so a transaction in the history of
 *   several scripts is proven that many times.
 * No subscriptions: a BDK wallet polls.
 *
 * Before each batch of histories BDK derives the batch's scripts from the descriptors (a BIP32
 * child key each), and the server waits meanwhile. On the proxy's clock its pause before a batch
 * grew by ~50 µs per script (0.37, 0.62 and 1.1 ms for batches of 5, 10 and 20 on the lab machine,
 * docs/findings/2026-11-26-wallet-clients-quiet.md); the workload pauses that long, not deriving.
 *
 * stop_gap and batch_size are the caller's choice (the crate has no default): 20 and 10 here.
 */
import type { WalletChain } from '../../core/wallet-chain';
import type { WalletLine } from '../../core/wallet-line';
import { SCAN } from '../../core/wallet-scan';
import type { BatchItem } from '../../electrum/client';
import type { ElectrumError } from '../../electrum/errors';
import type { Findings } from '../findings';
import type { WalletSession } from '../session';
import { historyOf, scriptAt, type Workload } from './workload';

const { stopGap: STOP_GAP, batch: BATCH_SIZE } = SCAN.bdk;
/** BDK's time to derive one script it is about to ask about (see above). */
const DERIVE_NS = 50_000;
/** The pause before each batch of histories: its scripts derived. */
export const BATCH_PAUSE_NS = BATCH_SIZE * DERIVE_NS;

export const bdkWorkload: Workload = {
  name: 'bdk',
  summary:
    'BDK: server.version, the tip, its last 8 headers and the genesis header; get_history in batches of 10 lines to a stop gap of 20, each after a pause for deriving its scripts, new transactions one at a time; then a batch of lines of headers and one of Merkle proofs (one per history entry)',
  maxInFlight: 1,
  largestBatch: 1,
  client: { clientName: '' },
  subscribes: false,
  async sync(s, w, found) {
    const tip = (await s.call<{ height: number }>('headers', 'blockchain.headers.subscribe')).height;
    await s.call('block-headers', 'blockchain.block.headers', [Math.max(0, tip - 7), 8]);
    // Block 0 is then among those 8 headers only on a chain of 8 blocks or fewer.
    if (tip >= 8) await s.call('block-headers', 'blockchain.block.header', [0]);
    const toProve: Array<[string, number]> = [];
    for (const chain of ['receive', 'change'] as const) toProve.push(...(await scanChain(s, w, chain, found)));
    const heights = [...new Set(toProve.map(([, h]) => h))];
    if (heights.length) okAll(await s.batch('block-headers', 'blockchain.block.header', heights.map((h) => [h]), 'lines'));
    if (toProve.length) okAll(await s.batch('proofs', 'blockchain.transaction.get_merkle', toProve.map(([t, h]) => [t, h]), 'lines'));
  },
};

/** One keychain's scan; returns its confirmed history entries, repeats included, to be proven. */
async function scanChain(s: WalletSession, w: WalletLine, chain: WalletChain, found: Findings): Promise<Array<[string, number]>> {
  const toProve: Array<[string, number]> = [];
  let emptyInARow = 0;
  for (let start = 0; emptyInARow < STOP_GAP; start += BATCH_SIZE) {
    const scripts = Array.from({ length: BATCH_SIZE }, (_, k) => scriptAt(w, chain, start + k).scripthash);
    await s.ownWork(BATCH_PAUSE_NS);
    const answers = okAll(await s.batch('history', 'blockchain.scripthash.get_history', scripts.map((sh) => [sh]), 'lines'));
    for (const [k, scripthash] of scripts.entries()) {
      const history = historyOf(answers[k], scripthash);
      if (history.length === 0) {
        emptyInARow++;
        continue;
      }
      emptyInARow = 0;
      found.histories.set(scripthash, history);
      for (const e of history) {
        if (!found.rawTxs.has(e.tx_hash)) found.rawTxs.set(e.tx_hash, await s.call<string>('transactions', 'blockchain.transaction.get', [e.tx_hash]));
        if (e.height > 0) toProve.push([e.tx_hash, e.height]);
      }
    }
  }
  return toProve;
}

function okAll(items: BatchItem[]): unknown[] {
  const failed = items.find((i): i is { ok: false; error: ElectrumError } => !i.ok);
  if (failed) throw failed.error;
  return items.map((i) => (i as { ok: true; result: unknown }).result);
}
