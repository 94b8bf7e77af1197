/**
 * Own answers about outputs and mempool entries: gettxspendingprevout over the mempool AND the
 * chain (Core 31 with txospenderindex), getmempoolentry. btcd answers the mempool half of
 * gettxspendingprevout itself; the confirmed half comes from the adapter's spender index.
 */
import { RpcFailure } from './btcd-client';
import type { Handler } from './context';
import { coreEntries } from './mempool-entry';
import { arity, hashParam, intParam, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from './params';

interface SpendReply {
  txid: string;
  vout: number;
  spendingtxid?: string;
  blockhash?: string;
  spendingtx?: string;
}

export const gettxspendingprevout: Handler = async (params, ctx) => {
  arity('gettxspendingprevout', params, 1, 2);
  if (!Array.isArray(params[0]) || params[0].length === 0) {
    throw new RpcFailure(RPC_INVALID_PARAMETER, 'Invalid parameter, outputs are missing');
  }
  const outpoints = params[0].map((o: unknown) => {
    const r = (o ?? {}) as Record<string, unknown>;
    const vout = intParam(r.vout, 'vout');
    if (vout < 0) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');
    return { txid: hashParam(r.txid, 'txid'), vout };
  });
  const options = (params[1] ?? {}) as Record<string, unknown>;
  const mempoolOnly = options.mempool_only === true; // Core's default is false when the index exists
  const withTx = options.return_spending_tx === true;

  const fromMempool = await ctx.btcd.get<SpendReply[]>('gettxspendingprevout', [outpoints]);
  if (!mempoolOnly && fromMempool.some((r) => !r.spendingtxid)) await ctx.deps.spenders.sync();
  const replies: SpendReply[] = outpoints.map((o, i) => {
    const m = fromMempool[i];
    if (m?.spendingtxid) return { txid: o.txid, vout: o.vout, spendingtxid: m.spendingtxid };
    const c = mempoolOnly ? undefined : ctx.deps.spenders.lookup(o.txid, o.vout);
    return c ? { txid: o.txid, vout: o.vout, spendingtxid: c.spendingtxid, blockhash: c.blockhash } : { ...o };
  });
  if (withTx) {
    const spenders = replies.filter((r) => r.spendingtxid);
    const hexes = await ctx.btcd.getMany<string>(spenders.map((r) => ({ method: 'getrawtransaction', params: [r.spendingtxid, 0] })));
    spenders.forEach((r, i) => (r.spendingtx = hexes[i]));
  }
  return replies;
};

export const getmempoolentry: Handler = async (params, ctx) => {
  arity('getmempoolentry', params, 1, 1);
  const txid = hashParam(params[0], 'txid');
  const pool = await ctx.mempool();
  if (!pool[txid]) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
  return (await coreEntries(ctx.deps.data, pool, [txid])).get(txid);
};
