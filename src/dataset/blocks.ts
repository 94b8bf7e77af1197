/**
 * Reads a height range of verbose blocks (`getblock <hash> 2`) so that the node, not we, is the
 * bottleneck: a few JSON-RPC batches are in flight at once, the next one is asked for before the
 * current one is handed on, and each batch holds about the same number of transactions whether
 * blocks are regtest-tiny or mainnet-full. Batches come back in height order.
 */
import type { NodeRpc } from '../node/rpc';

export interface FetchedBlock {
  height: number;
  hash: string;
  block: unknown;
}

export interface FetchOptions {
  concurrency: number;
  /** Transactions aimed for per request: big enough to amortise a round trip, small enough to parse quickly. */
  targetTxs?: number;
  maxBlocksPerRequest?: number;
}

export async function* fetchBlocks(rpc: NodeRpc, from: number, to: number, opts: FetchOptions): AsyncGenerator<FetchedBlock[]> {
  const targetTxs = opts.targetTxs ?? 2000;
  const maxBlocks = opts.maxBlocksPerRequest ?? 100;
  let next = from;
  let seenBlocks = 0;
  let seenTxs = 0;
  const inflight: Array<Promise<FetchedBlock[]>> = [];

  const launch = () => {
    // Until a block has been seen, one block per request: a mainnet block can be megabytes of JSON.
    const size = seenBlocks === 0 ? 1 : Math.max(1, Math.min(maxBlocks, Math.floor(targetTxs / Math.max(1, seenTxs / seenBlocks))));
    const start = next;
    const end = Math.min(to, start + size - 1);
    next = end + 1;
    const request = fetchRange(rpc, start, end);
    request.catch(() => undefined); // rejections surface when this batch's turn comes, not as unhandled
    inflight.push(request);
  };
  const fill = () => {
    while (next <= to && inflight.length < opts.concurrency) launch();
  };

  fill();
  while (inflight.length > 0) {
    const batch = await inflight.shift()!;
    for (const b of batch) {
      seenBlocks++;
      seenTxs += txCountOf(b.block);
    }
    fill();
    yield batch;
  }
}

async function fetchRange(rpc: NodeRpc, start: number, end: number): Promise<FetchedBlock[]> {
  const heights = Array.from({ length: end - start + 1 }, (_, i) => start + i);
  const hashes = await rpc.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
  const blocks = await rpc.batch<unknown>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 2] })));
  return heights.map((height, i) => ({ height, hash: hashes[i], block: blocks[i] }));
}

function txCountOf(block: unknown): number {
  const b = block as { tx?: unknown[]; nTx?: number } | null;
  return b?.tx?.length ?? b?.nTx ?? 1;
}
