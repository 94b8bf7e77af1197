/**
 * The outputs a block's (or a transaction's) inputs spend, looked up in btcd's txindex: the data
 * Bitcoin Core keeps as undo data and serves as `/rest/spenttxouts/` and getblock verbosity 3
 * `prevout`. btcd has no undo data over RPC, so each input's funding transaction is fetched.
 */
import * as bitcoin from 'bitcoinjs-lib';
import { compactSize, txOutBytes } from './bytes';
import type { ChainData, TxOutput } from './chain-data';

export interface Outpoint {
  txid: string;
  vout: number;
}

export interface Prevout extends TxOutput {
  generated: boolean; // funded by a coinbase
  height: number | null; // funding block height; null while the funding tx is unconfirmed
}

/** For each transaction's list of inputs, the outputs they spend (same shape). */
export async function prevoutsOf(data: ChainData, inputs: Outpoint[][], withHeights: boolean): Promise<Prevout[][]> {
  const txs = await data.txs(inputs.flat().map((o) => o.txid));
  let heights = new Map<string, number>();
  if (withHeights) {
    const hashes = [...txs.values()].map((t) => t.blockhash).filter((h): h is string => h !== null);
    heights = await data.heights(hashes);
  }
  return inputs.map((ins) =>
    ins.map((o) => {
      const funding = txs.get(o.txid)!;
      const out = funding.outputs[o.vout];
      if (!out) throw new Error(`${o.txid} has no output ${o.vout}`);
      return {
        ...out,
        generated: funding.coinbase,
        height: funding.blockhash ? (heights.get(funding.blockhash) ?? null) : null,
      };
    }),
  );
}

/** The inputs of each transaction of a serialized block; the coinbase has none that spend. */
export function blockInputs(raw: Buffer): Outpoint[][] {
  const block = bitcoin.Block.fromBuffer(raw);
  return (block.transactions ?? []).map((tx, i) =>
    i === 0 ? [] : tx.ins.map((inp) => ({ txid: Buffer.from(inp.hash).reverse().toString('hex'), vout: inp.index })),
  );
}

/**
 * Core's `/rest/spenttxouts/<hash>.bin` body (rest.cpp SerializeBlockUndo, Core 30): CompactSize of
 * the block's transaction count, an empty list standing for the coinbase, then per transaction the
 * CompactSize-counted list of spent CTxOuts (value, script). bindex checks the count against the block.
 */
export function spentTxoutsBytes(perTx: Prevout[][]): Buffer {
  const parts: Buffer[] = [compactSize(perTx.length)];
  for (const outs of perTx) {
    parts.push(compactSize(outs.length));
    for (const o of outs) parts.push(txOutBytes(o.value, o.script));
  }
  return Buffer.concat(parts);
}
