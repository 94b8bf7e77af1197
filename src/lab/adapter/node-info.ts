/**
 * Own answers about the node as a whole, which btcd does not implement (getnetworkinfo,
 * getindexinfo, estimatesmartfee), computed from what btcd does report (getinfo, getblockcount,
 * estimatefee) and from the adapter's spender index.
 */
import { RpcFailure } from './btcd-client';
import type { Handler } from './context';
import { arity, intParam, RPC_INVALID_PARAMETER } from './params';

/**
 * The Bitcoin Core release whose RPC dialect the adapter speaks for the calls it serves. ElectrumX 2.0
 * refuses a node below 31.0 (it needs txospenderindex), so the adapter reports 31.0.
 */
export const CORE_DIALECT_VERSION = 310000;

/** btcd's getinfo.version packs major*10000 + minor*100 + patch (240200 = 0.24.2). */
function btcdVersionString(v: number): string {
  return `${Math.floor(v / 1_000_000)}.${Math.floor(v / 10_000) % 100}.${Math.floor(v / 100) % 100}`;
}

export const getnetworkinfo: Handler = async (params, ctx) => {
  arity('getnetworkinfo', params, 0, 0);
  const info = await ctx.btcdInfo();
  return {
    version: CORE_DIALECT_VERSION,
    // Core's form, /Satoshi:X.Y.Z(comments)/: Fulcrum tells Bitcoin from Bitcoin Cash by the
    // /Satoshi: prefix alone. The comment says what really answers.
    subversion: `/Satoshi:${btcdVersionString(CORE_DIALECT_VERSION * 100)}(btcd ${btcdVersionString(info.version)}; electrum-bench-adapter core-dialect)/`,
    protocolversion: info.protocolversion,
    networkactive: true,
    connections: info.connections,
    relayfee: info.relayfee,
    warnings: '',
  };
};

export const getindexinfo: Handler = async (params, ctx) => {
  arity('getindexinfo', params, 0, 1);
  const [indexed, tip] = await Promise.all([ctx.deps.spenders.sync(), ctx.btcd.get<number>('getblockcount')]);
  const all: Record<string, { synced: boolean; best_block_height: number }> = {
    // The lab starts btcd with --txindex on a fresh chain; btcd updates it as each block connects.
    txindex: { synced: true, best_block_height: tip },
    txospenderindex: { synced: indexed >= tip, best_block_height: indexed },
  };
  const name = params[0];
  if (name === undefined || name === null) return all;
  if (typeof name !== 'string') throw new RpcFailure(-3, 'index_name: expected a string');
  return name in all ? { [name]: all[name] } : {};
};

const NO_ESTIMATE = 'Insufficient data or no feerate found';

export const estimatesmartfee: Handler = async (params, ctx) => {
  arity('estimatesmartfee', params, 1, 2);
  const target = intParam(params[0], 'conf_target');
  if (target < 1 || target > 1008) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Invalid conf_target, must be between 1 and 1008');
  // btcd's estimator answers only up to 25 blocks and only after observing enough blocks; it
  // reports "no data" as an error or a non-positive rate, which Core reports as `errors`.
  const o = await ctx.btcd.call('estimatefee', [target]);
  const rate = o.error ? -1 : Number(o.result);
  if (rate > 0) return { feerate: rate, blocks: target };
  return { errors: [NO_ESTIMATE], blocks: 0 };
};
