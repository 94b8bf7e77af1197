/**
 * Calls btcd implements with a different shape than Bitcoin Core: the parameters are rewritten on
 * the way in and the result on the way out. Fields btcd lacks and the adapter computes are listed in
 * own-answers.ts (OWN_FIELDS); everything else here only reshapes what btcd returned.
 */
import { RpcFailure } from './btcd-client';
import { btcToSats, satsToBtc } from './bytes';
import type { Handler, RequestContext } from './context';
import { coreEntries } from './mempool-entry';
import { arity, hashParam, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, verbosityParam } from './params';
import { prevoutsOf, type Prevout } from './prevouts';

interface BtcdTxJson {
  txid: string;
  vin: Array<Record<string, unknown> & { txid?: string; vout?: number; coinbase?: string }>;
  vout: Array<{ value: number }>;
  blockhash?: string;
  [k: string]: unknown;
}

/** Core (getblock, rest.cpp): a tx's `fee` and each input's `prevout` at verbosity 3 / getrawtransaction 2. */
async function addPrevouts(ctx: RequestContext, txs: BtcdTxJson[]): Promise<void> {
  const spending = txs.filter((t) => !(t.vin[0] && t.vin[0].coinbase !== undefined));
  const inputs = spending.map((t) => t.vin.map((v) => ({ txid: v.txid as string, vout: v.vout as number })));
  const prevouts = await prevoutsOf(ctx.deps.data, inputs, true);
  spending.forEach((t, i) => {
    const ins = prevouts[i];
    t.vin.forEach((v, j) => (v.prevout = prevoutJson(ins[j])));
    const inSum = ins.reduce((n, p) => n + p.value, 0n);
    const outSum = t.vout.reduce((n, o) => n + btcToSats(o.value), 0n);
    t.fee = satsToBtc(inSum - outSum);
  });
}

function prevoutJson(p: Prevout): Record<string, unknown> {
  return { generated: p.generated, ...(p.height !== null ? { height: p.height } : {}), value: satsToBtc(p.value), scriptPubKey: p.scriptPubKey };
}

const getblock: Handler = async (params, ctx) => {
  arity('getblock', params, 1, 2);
  const hash = hashParam(params[0], 'blockhash');
  // Core: 0 = hex, 1 = txids, 2 = transactions, 3 (and above) = transactions with prevouts.
  const verbosity = Math.max(0, Math.min(3, verbosityParam(params[1], 'verbosity', 1)));
  if (verbosity <= 1) return ctx.btcd.get('getblock', [hash, verbosity]);
  // btcd answers verbosity 3 as if it were 2 (no prevouts), so always ask for 2. Its `rawtx` is
  // already `tx` here: the node transport renames it for every client.
  const block = await ctx.btcd.get<Record<string, unknown>>('getblock', [hash, 2]);
  if (verbosity === 3) await addPrevouts(ctx, block.tx as BtcdTxJson[]);
  return block;
};

const getrawtransaction: Handler = async (params, ctx) => {
  arity('getrawtransaction', params, 1, 3);
  const txid = hashParam(params[0], 'txid');
  const verbosity = verbosityParam(params[1], 'verbosity', 0);
  const inBlock = params[2] === undefined || params[2] === null ? null : hashParam(params[2], 'blockhash');
  if (verbosity <= 0 && inBlock === null) return ctx.btcd.get('getrawtransaction', [txid, 0]);
  // btcd takes no blockhash argument; its txindex finds the transaction, and the adapter checks the
  // block it names, with Core's error when it differs.
  const tx = await ctx.btcd.get<BtcdTxJson & { hex: string }>('getrawtransaction', [txid, 1]);
  if (inBlock !== null) {
    if (tx.blockhash !== inBlock) {
      throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'No such transaction found in the provided block. Use gettransaction for wallet transactions.');
    }
    tx.in_active_chain = true; // btcd's txindex only maps transactions of the active chain
  }
  if (verbosity <= 0) return tx.hex;
  if (verbosity >= 2) await addPrevouts(ctx, [tx]);
  return tx;
};

// Core's default maximum tip age (validation.h DEFAULT_MAX_TIP_AGE): a tip older than this means
// the node is still in initial block download.
const MAX_TIP_AGE_S = 24 * 60 * 60;

const getblockchaininfo: Handler = async (params, ctx) => {
  arity('getblockchaininfo', params, 0, 0);
  const info = await ctx.btcd.get<Record<string, unknown> & { bestblockhash: string }>('getblockchaininfo');
  const tip = await ctx.btcd.get<{ time: number }>('getblockheader', [info.bestblockhash, true]);
  info.initialblockdownload = tip.time < Date.now() / 1000 - MAX_TIP_AGE_S;
  // btcd leaves it out when it has nothing to say; Esplora's electrs requires it. A node whose
  // blocks reach its best header has verified everything it knows of.
  if (typeof info.verificationprogress !== 'number') {
    const blocks = Number(info.blocks);
    const headers = Number(info.headers);
    info.verificationprogress = headers > 0 ? Math.min(1, blocks / headers) : 1;
  }
  return info;
};

const getmempoolinfo: Handler = async (params, ctx) => {
  arity('getmempoolinfo', params, 0, 0);
  const [base, pool, info] = await Promise.all([
    ctx.btcd.get<Record<string, unknown>>('getmempoolinfo'),
    ctx.mempool(),
    ctx.btcdInfo(),
  ]);
  const totalFee = Object.values(pool).reduce((n, e) => n + btcToSats(e.fee), 0n);
  return {
    loaded: true, // btcd keeps no mempool across restarts, so there is nothing to load
    ...base,
    total_fee: satsToBtc(totalFee),
    // btcd's only fee floor is its relay fee: no size-based minimum and no separate increment.
    mempoolminfee: info.relayfee,
    minrelaytxfee: info.relayfee,
    incrementalrelayfee: info.relayfee,
  };
};

const getrawmempool: Handler = async (params, ctx) => {
  arity('getrawmempool', params, 0, 2);
  const verbose = params[0] === true || params[0] === 1;
  if (params[1] === true) {
    throw new RpcFailure(RPC_INVALID_PARAMETER, 'mempool_sequence is not available: btcd keeps no mempool sequence');
  }
  if (!verbose) return ctx.btcd.get('getrawmempool', [false]);
  const pool = await ctx.mempool();
  const entries = await coreEntries(ctx.deps.data, pool, Object.keys(pool));
  return Object.fromEntries(entries);
};

/** btcd's estimatefee takes exactly one argument (Core's took an optional second before 0.17). */
const estimatefee: Handler = async (params, ctx) => {
  arity('estimatefee', params, 1, 2);
  return ctx.btcd.get('estimatefee', [params[0]]);
};

/** btcd requires Core's optional maxfeerate; Core's default is 0.10 BTC/kvB. */
const testmempoolaccept: Handler = async (params, ctx) => {
  arity('testmempoolaccept', params, 1, 2);
  return ctx.btcd.get('testmempoolaccept', [params[0], params[1] ?? 0.1]);
};

/** btcd takes (hex, maxfeerate-or-allowhighfees) and rejects Core's third `maxburnamount`. */
const sendrawtransaction: Handler = async (params, ctx) => {
  arity('sendrawtransaction', params, 1, 3);
  return ctx.btcd.get('sendrawtransaction', params.slice(0, params[1] === undefined || params[1] === null ? 1 : 2));
};

export const DIALECT: Record<string, Handler> = {
  getblock,
  getrawtransaction,
  getblockchaininfo,
  getmempoolinfo,
  getrawmempool,
  estimatefee,
  testmempoolaccept,
  sendrawtransaction,
};

/** One line per translation, for the README. */
export const DIALECT_NOTES: Record<string, string> = {
  getblock: 'boolean verbosity → integer; verbosity 2/3 asks btcd for 2 (whose `rawtx` the node transport renames to `tx`)',
  getrawtransaction: 'boolean verbose → integer; the optional blockhash is checked by the adapter (btcd takes no third argument)',
  getblockchaininfo: 'forwarded; `initialblockdownload` and, where btcd omits it, `verificationprogress` added (see OWN_FIELDS)',
  getmempoolinfo: 'forwarded; fee fields added (see OWN_FIELDS)',
  getrawmempool: 'verbose entries reshaped to Core\'s getmempoolentry shape; mempool_sequence refused',
  estimatefee: 'extra arguments dropped (btcd takes one)',
  testmempoolaccept: 'maxfeerate defaulted to Core\'s 0.10 (btcd requires it)',
  sendrawtransaction: 'maxburnamount dropped (btcd takes at most two arguments)',
};
