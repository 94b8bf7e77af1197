/**
 * Ground truth from the node alone, sharing nothing with the generator's ledger: walk every block
 * from genesis (getblock verbosity 2), then the mempool (getrawmempool + getrawtransaction
 * verbosity 1), and account each output and spend against the Electrum scripthashes asked for.
 * Walking from genesis means every prevout of a watched script was seen earlier in the walk, so a
 * spend is recognised without per-input lookups.
 */
import { confirmedCount, isConfirmedHeight } from '../../core/confirmed';
import { scriptHashOfScript } from '../../electrum/scripthash';
import { btcToSats, ChainClient, VerboseTx } from './chain';
import { canonicalHistory, HistoryItem, historyDigest, ScriptTruth, utxoKey } from './truth';

interface Out {
  scripthash: string;
  value: number;
  height: number; // 0 for mempool
  spentInMempool: boolean;
}

interface Acc {
  history: Map<string, number>; // txid → height (0/-1 in the mempool)
  outs: Map<string, Out>; // "txid:vout" of unspent outputs
}

export interface WalkResult {
  tipHeight: number;
  tipHash: string;
  blocks: number;
  transactions: number; // confirmed, coinbases included
  truths: Map<string, ScriptTruth>;
  /** Every block header (80 bytes, hex) by height, as the node serves it. */
  headers: string[];
}

export async function walkChain(chain: ChainClient, scripthashes: Iterable<string>): Promise<WalkResult> {
  const acc = new Map<string, Acc>();
  for (const sh of scripthashes) acc.set(sh, { history: new Map(), outs: new Map() });
  const owned = new Map<string, Out>(); // every unspent watched output, by outpoint
  const shOfHex = (hex: string): string => scriptHashOfScript(Buffer.from(hex, 'hex'));

  const apply = (tx: VerboseTx, height: number): void => {
    for (const vin of tx.vin) {
      if (vin.coinbase !== undefined || vin.txid === undefined) continue;
      const key = `${vin.txid}:${vin.vout}`;
      const prev = owned.get(key);
      if (!prev) continue;
      const a = acc.get(prev.scripthash)!;
      a.history.set(tx.txid, height);
      if (isConfirmedHeight(height)) {
        owned.delete(key);
        a.outs.delete(key);
      } else prev.spentInMempool = true;
    }
    for (const vout of tx.vout) {
      const sh = shOfHex(vout.scriptPubKey.hex);
      const a = acc.get(sh);
      if (!a) continue;
      const out: Out = { scripthash: sh, value: btcToSats(vout.value), height, spentInMempool: false };
      const key = `${tx.txid}:${vout.n}`;
      owned.set(key, out);
      a.outs.set(key, out);
      a.history.set(tx.txid, height);
    }
  };

  const tipHash = await chain.bestBlockHash();
  const tipHeight = await chain.blockCount();
  // Genesis is skipped: its coinbase is unspendable and servers do not index it, and height 0
  // means "mempool" in the protocol.
  const hashes = await chain.blockHashes(Array.from({ length: tipHeight }, (_, h) => h + 1));
  let transactions = 1;
  for (let i = 0; i < hashes.length; i += 50) {
    for (const block of await chain.verboseBlocks(hashes.slice(i, i + 50))) {
      transactions += block.tx.length;
      for (const tx of block.tx) apply(tx, block.height);
    }
  }
  if ((hashes[hashes.length - 1] ?? tipHash) !== tipHash || (await chain.bestBlockHash()) !== tipHash) throw new Error('the chain tip moved during the walk');

  const mempool = await chain.verboseTxs(await chain.mempoolTxids());
  const mempoolIds = new Set(mempool.map((t) => t.txid));
  // Outputs first so that a mempool child finds its mempool parent's output whatever the order.
  const outputsOnly = (t: VerboseTx): VerboseTx => ({ ...t, vin: [] });
  for (const tx of mempool) apply(outputsOnly(tx), 0);
  for (const tx of mempool) {
    apply({ ...tx, vout: [] }, 0);
    const hasUnconfirmedParent = tx.vin.some((v) => v.txid !== undefined && mempoolIds.has(v.txid));
    if (hasUnconfirmedParent) for (const a of acc.values()) if (a.history.has(tx.txid)) a.history.set(tx.txid, -1);
  }

  const truths = new Map<string, ScriptTruth>();
  for (const [sh, a] of acc) {
    let utxoCount = 0;
    let confirmed = 0;
    let unconfirmed = 0;
    const listunspent: string[] = [];
    for (const [key, o] of a.outs) {
      if (isConfirmedHeight(o.height)) {
        if (!o.spentInMempool) utxoCount++;
        confirmed += o.value;
        if (o.spentInMempool) unconfirmed -= o.value;
      } else {
        unconfirmed += o.value;
        if (o.spentInMempool) unconfirmed -= o.value;
      }
      const [txid, vout] = key.split(':');
      if (!o.spentInMempool) listunspent.push(utxoKey(txid, Number(vout), o.value, o.height));
    }
    const history: HistoryItem[] = [...a.history].map(([tx_hash, height]) => ({ tx_hash, height }));
    truths.set(sh, {
      scripthash: sh,
      txCount: confirmedCount(history),
      mempoolTxCount: history.length - confirmedCount(history),
      utxoCount,
      balance: { confirmed, unconfirmed },
      listunspent: listunspent.sort(),
      historyDigest: historyDigest(history),
      history: canonicalHistory(history),
    });
  }
  const headers = await chain.blockHeaders([await chain.blockHashes([0]).then((h) => h[0]), ...hashes]);
  return { tipHeight, tipHash, blocks: tipHeight + 1, transactions, truths, headers };
}
