/**
 * The node calls the generator and the chain walk need, over NodeRpc, limited to calls btcd has
 * natively with the same meaning in Bitcoin Core. Both dialects are accepted where they differ:
 * btcd mines with `generate` (Core: `generatetoaddress`); its getblock shape is normalised by the
 * node transport.
 */
import { NodeRpc, NodeRpcError } from '../../node/rpc';

export interface VerboseTx {
  txid: string;
  hex: string;
  vin: Array<{ txid?: string; vout?: number; coinbase?: string }>;
  vout: Array<{ value: number; n: number; scriptPubKey: { hex: string } }>;
}

export interface VerboseBlock {
  hash: string;
  height: number;
  tx: VerboseTx[];
}

const RPC_BATCH = 100;
const METHOD_NOT_FOUND = -32601;

export const btcToSats = (btc: number): number => Math.round(btc * 1e8);

export class ChainClient {
  constructor(readonly rpc: NodeRpc) {}

  blockCount(): Promise<number> {
    return this.rpc.call<number>('getblockcount');
  }

  async bestBlockHash(): Promise<string> {
    return this.rpc.call<string>('getbestblockhash');
  }

  async chainName(): Promise<string> {
    const info = await this.rpc.call<{ chain: string }>('getblockchaininfo');
    return info.chain;
  }

  /** Mines n blocks to the node's mining address; returns their hashes in order. */
  async mine(n: number, address: string): Promise<string[]> {
    const hashes: string[] = [];
    while (hashes.length < n) {
      const step = Math.min(100, n - hashes.length);
      try {
        hashes.push(...(await this.rpc.call<string[]>('generate', [step])));
      } catch (err) {
        if (!(err instanceof NodeRpcError) || err.code !== METHOD_NOT_FOUND) throw err;
        hashes.push(...(await this.rpc.call<string[]>('generatetoaddress', [step, address])));
      }
    }
    return hashes;
  }

  async submit(hexes: string[]): Promise<void> {
    for (let i = 0; i < hexes.length; i += RPC_BATCH) {
      const chunk = hexes.slice(i, i + RPC_BATCH);
      await this.rpc.batch(chunk.map((hex) => ({ method: 'sendrawtransaction', params: [hex] })));
    }
  }

  mempoolTxids(): Promise<string[]> {
    return this.rpc.call<string[]>('getrawmempool');
  }

  async blockHashes(heights: number[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < heights.length; i += RPC_BATCH) {
      const chunk = heights.slice(i, i + RPC_BATCH);
      out.push(...(await this.rpc.batch<string>(chunk.map((h) => ({ method: 'getblockhash', params: [h] })))));
    }
    return out;
  }

  /** Raw 80-byte headers (hex): getblockheader's `verbose` is a boolean in btcd and Core alike. */
  async blockHeaders(hashes: string[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < hashes.length; i += RPC_BATCH) {
      const chunk = hashes.slice(i, i + RPC_BATCH);
      out.push(...(await this.rpc.batch<string>(chunk.map((h) => ({ method: 'getblockheader', params: [h, false] })))));
    }
    return out;
  }

  /** txids per block, verbosity 1 (integers only: btcd rejects booleans). */
  async blockTxids(hashes: string[]): Promise<Array<{ height: number; tx: string[] }>> {
    const out: Array<{ height: number; tx: string[] }> = [];
    for (let i = 0; i < hashes.length; i += RPC_BATCH) {
      const chunk = hashes.slice(i, i + RPC_BATCH);
      out.push(...(await this.rpc.batch<{ height: number; tx: string[] }>(chunk.map((h) => ({ method: 'getblock', params: [h, 1] })))));
    }
    return out;
  }

  async verboseBlocks(hashes: string[], perRequest = 20): Promise<VerboseBlock[]> {
    const out: VerboseBlock[] = [];
    for (let i = 0; i < hashes.length; i += perRequest) {
      const chunk = hashes.slice(i, i + perRequest);
      const blocks = await this.rpc.batch<{ hash: string; height: number; tx?: unknown }>(
        chunk.map((h) => ({ method: 'getblock', params: [h, 2] })),
      );
      for (const b of blocks) {
        const txs = b.tx as VerboseTx[] | undefined;
        if (!Array.isArray(txs) || (txs.length > 0 && typeof txs[0] !== 'object')) {
          throw new Error(`getblock ${b.hash} 2 returned no transaction objects`);
        }
        out.push({ hash: b.hash, height: b.height, tx: txs });
      }
    }
    return out;
  }

  async verboseTxs(txids: string[]): Promise<VerboseTx[]> {
    const out: VerboseTx[] = [];
    for (let i = 0; i < txids.length; i += RPC_BATCH) {
      const chunk = txids.slice(i, i + RPC_BATCH);
      out.push(...(await this.rpc.batch<VerboseTx>(chunk.map((t) => ({ method: 'getrawtransaction', params: [t, 1] })))));
    }
    return out;
  }
}
