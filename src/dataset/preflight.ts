/**
 * What must hold before a build reads a single block: the node is on a network we can spell
 * addresses for (and the one asked for), the range is below its tip, the Electrum server is on
 * the same chain and has indexed the range, and a checkpoint being resumed was written on this
 * chain. Each failure is a UserError naming both sides.
 */
import { NodeRpc, NodeRpcError } from '../node/rpc';
import { UserError } from '../core/user-error';
import type { NetworkName } from '../electrum/scripthash';
import type { BuildOptions } from './options';
import { chainOfGenesis, networkOfChain } from './network';
import { CountServer, genesisHashOf } from './count-server';
import type { Progress } from './checkpoint';
import type { BuildEvents } from './events';

export async function nodeNetwork(rpc: NodeRpc, opts: BuildOptions): Promise<NetworkName> {
  const info = await rpc.call<{ chain: string; blocks: number }>('getblockchaininfo');
  const network = networkOfChain(String(info.chain));
  if (network === null) throw new UserError(`node ${rpc.describe()} is on chain ${JSON.stringify(info.chain)}, which has no address format we know`);
  if (opts.network !== 'auto' && opts.network !== network) {
    throw new UserError(`--network ${opts.network}, but node ${rpc.describe()} is on ${network}`);
  }
  if (opts.to > info.blocks) throw new UserError(`--to ${opts.to} is beyond the tip of node ${rpc.describe()} (height ${info.blocks})`);
  return network;
}

export async function checkSameChain(rpc: NodeRpc, server: CountServer, network: NetworkName): Promise<void> {
  const [nodeGenesis, serverGenesis] = await Promise.all([rpc.call<string>('getblockhash', [0]), genesisHashOf(server)]);
  if (nodeGenesis !== serverGenesis) {
    throw new UserError(`node ${rpc.describe()} is on ${network} but electrum server ${server.label} is on ${chainOfGenesis(serverGenesis)}`);
  }
}

/** Counts are only right if the server has indexed the range, on the node's own chain. */
export async function checkServerTip(rpc: NodeRpc, server: CountServer, tip: { height: number; hash: string }, to: number): Promise<void> {
  if (tip.height < to) {
    throw new UserError(`electrum server ${server.label} is at height ${tip.height}, below --to ${to}: let it finish indexing first`);
  }
  let nodeHash: string | null = null;
  try {
    nodeHash = await rpc.call<string>('getblockhash', [tip.height]);
  } catch (err) {
    if (!(err instanceof NodeRpcError)) throw err;
  }
  if (nodeHash !== tip.hash) {
    throw new UserError(`electrum server ${server.label} has block ${tip.height} = ${tip.hash.slice(0, 16)}…, which is not on the chain of node ${rpc.describe()}`);
  }
}

/** btcd drops a regtest chain on restart: a journal from an older chain must not be mixed in. */
export async function checkResumable(rpc: NodeRpc, file: string, progress: Progress, events: BuildEvents): Promise<void> {
  if (progress.scannedHash !== null) {
    const hash = await rpc.call<string>('getblockhash', [progress.scannedThrough]);
    if (hash !== progress.scannedHash) {
      throw new UserError(`${file} was written for another chain (block ${progress.scannedThrough} differs): delete it to start over`);
    }
  }
  events.emit(
    'note',
    `resuming from ${file}: blocks scanned through ${progress.scannedThrough}, ${progress.candidates.size} candidates, ${progress.counts.size} counted`,
  );
}
