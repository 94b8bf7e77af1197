/**
 * The scan phase: every script funded in a block range becomes a candidate, once. Candidates keep
 * the order in which the chain first funded them, which makes the count phase (and its journal)
 * reproducible.
 */
import type { NodeRpc } from '../node/rpc';
import type { NetworkName } from '../electrum/scripthash';
import { fetchBlocks } from './blocks';
import { Candidate, candidateOf, fundedScriptsOf, scripthashOfHex } from './outputs';
import type { BuildEvents } from './events';

export interface ScanOptions {
  from: number;
  to: number;
  network: NetworkName;
  concurrency: number;
  signal?: AbortSignal;
}

export interface ScanState {
  /** Last height already scanned (from - 1 when none). */
  scannedThrough: number;
  candidates: Map<string, Candidate>;
}

/** Called after each batch of blocks, with the candidates it added: where the checkpoint hooks in. */
export type ScanRecorder = (through: number, hash: string, added: Candidate[]) => void;

export async function scanBlocks(rpc: NodeRpc, opts: ScanOptions, state: ScanState, record: ScanRecorder, events?: BuildEvents): Promise<void> {
  const total = opts.to - opts.from + 1;
  const tick = () => ({
    phase: 'scan' as const,
    done: state.scannedThrough - opts.from + 1,
    total,
    info: { candidates: state.candidates.size },
  });
  const startedAt = Date.now();
  events?.emit('start', tick());
  if (state.scannedThrough < opts.to && !opts.signal?.aborted) {
    for await (const batch of fetchBlocks(rpc, state.scannedThrough + 1, opts.to, { concurrency: opts.concurrency })) {
      const added: Candidate[] = [];
      for (const { height, block } of batch) {
        for (const hex of fundedScriptsOf(block, `node ${rpc.describe()} block ${height}`)) {
          const scripthash = scripthashOfHex(hex);
          if (state.candidates.has(scripthash)) continue;
          const candidate = candidateOf(hex, scripthash, opts.network);
          state.candidates.set(scripthash, candidate);
          added.push(candidate);
        }
      }
      const last = batch[batch.length - 1];
      record(last.height, last.hash, added);
      state.scannedThrough = last.height;
      events?.emit('progress', tick());
      if (opts.signal?.aborted) break;
    }
  }
  events?.emit('end', { ...tick(), elapsedMs: Date.now() - startedAt });
}
