/**
 * RPC answers served from the chain store (chain-store.ts) when it holds what is asked: btcd's own
 * bytes, kept from an earlier answer, so no round trip. Anything the store does not hold (a height
 * above its tip, a mempool transaction, a verbose form) goes on to the dialect handler or to btcd as
 * before. Mining calls are forwarded, then the store catches up before the reply, so a caller that
 * mined through the adapter finds its blocks here at once.
 */
import type { Handler } from './context';
import { DIALECT } from './dialect';
import { arity, hashParam, verbosityParam } from './params';

const forward =
  (method: string): Handler =>
  (params, ctx) =>
    ctx.btcd.get(method, params);

const getblock: Handler = async (params, ctx) => {
  arity('getblock', params, 1, 2);
  const block = ctx.deps.data.store.block(hashParam(params[0], 'blockhash'));
  if (block && verbosityParam(params[1], 'verbosity', 1) === 0) return block.raw.toString('hex');
  return DIALECT.getblock(params, ctx);
};

const getrawtransaction: Handler = async (params, ctx) => {
  arity('getrawtransaction', params, 1, 3);
  const raw = ctx.deps.data.store.tx(hashParam(params[0], 'txid'));
  const plain = verbosityParam(params[1], 'verbosity', 0) === 0 && (params[2] === undefined || params[2] === null);
  if (raw && plain) return raw.toString('hex');
  return DIALECT.getrawtransaction(params, ctx);
};

// Other shapes (verbose, wrong arity, bad arguments) are btcd's to answer, errors included.
const getblockheader: Handler = async (params, ctx) => {
  const header = params.length === 2 && params[1] === false && typeof params[0] === 'string' ? ctx.deps.data.store.header(params[0]) : undefined;
  return header ? header.toString('hex') : ctx.btcd.get('getblockheader', params);
};

const getblockhash: Handler = async (params, ctx) => {
  const hash = params.length === 1 && typeof params[0] === 'number' ? ctx.deps.data.store.hashAt(params[0]) : undefined;
  return hash ?? ctx.btcd.get('getblockhash', params);
};

/** Calls that add blocks to btcd's chain: the store catches up before the caller hears back. */
const mining = (method: string): Handler => {
  const send = forward(method);
  return async (params, ctx) => {
    const result = await send(params, ctx);
    // Not a pass the once-a-second sync began before the new blocks (it read the old tip: the
    // lab tier's chain-changing test saw one). If btcd stops answering here, that sync catches up
    // when it is back.
    await ctx.deps.data.store.syncSince().catch(() => undefined);
    return result;
  };
};

export const STORED: Record<string, Handler> = {
  getblock,
  getrawtransaction,
  getblockheader,
  getblockhash,
  generate: mining('generate'),
  generatetoaddress: mining('generatetoaddress'),
  submitblock: mining('submitblock'),
};
