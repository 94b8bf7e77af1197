/**
 * The count phase: for each candidate, its confirmed history size from the Electrum server, and
 * for those inside the tx-count range its confirmed UTXO count and balance. Asking for UTXOs and
 * balance only after the history says a candidate is kept spares the server two thirds of the
 * calls: most candidates of a block range hold a handful of transactions and are filtered out.
 *
 * utxoCount is what listunspent lists as confirmed (src/core/confirmed.ts), the project's
 * definition: unlike get_balance.confirmed it leaves out a confirmed output that a mempool
 * transaction already spends (ElectrumX and electrs both drop those from listunspent).
 *
 * Chunks of candidates go out as JSON-RPC batches no larger than the server profile's cap, over a
 * few pooled connections. A chunk that fails as a whole (timeout, disconnect, throttling) is
 * retried with backoff, split in two first in case its reply was what the server choked on.
 */
import { confirmedCount } from '../core/confirmed';
import { METHOD_RPC } from '../core/methods';
import type { ElectrumClient } from '../electrum/client';
import { toElectrumError } from '../electrum/errors';
import { classify } from '../servers/profiles';
import { UserError } from '../core/user-error';
import type { CountServer } from './count-server';
import type { Selection } from './options';
import { inTxRange } from './stratify';
import { callMany } from './electrum-calls';

export interface CountDetail {
  utxoCount: number;
  balance: { confirmed: number; unconfirmed: number };
}

export interface CountResult {
  /** Confirmed transactions touching the script; null when the server refused: history too large. */
  txCount: number | null;
  /** Present only for candidates inside the tx-count range. */
  detail?: CountDetail;
}

export interface CountOptions {
  connections: number;
  timeoutMs: number;
  range: Pick<Selection, 'minTxs' | 'maxTxs'>;
  signal?: AbortSignal;
  retries?: number;
  backoffMs?: number;
}

interface Chunk {
  scripthashes: string[];
  attempts: number;
}

/** Counts every scripthash in `pending`, handing each finished chunk to `onChunk` (in completion order). */
export async function countCandidates(
  server: CountServer,
  pending: readonly string[],
  opts: CountOptions,
  onChunk: (results: Array<[string, CountResult]>) => void,
): Promise<void> {
  const cap = Math.max(1, server.profile.batchCap);
  const retries = opts.retries ?? 5;
  const backoffMs = opts.backoffMs ?? 500;
  // Small sets are spread over every connection rather than filling one batch.
  const size = Math.max(1, Math.min(cap, Math.ceil(pending.length / opts.connections)));
  const queue: Chunk[] = [];
  for (let i = 0; i < pending.length; i += size) queue.push({ scripthashes: pending.slice(i, i + size), attempts: 0 });

  let fatal: Error | undefined;
  const worker = async (): Promise<void> => {
    while (queue.length > 0 && !opts.signal?.aborted && fatal === undefined) {
      const chunk = queue.shift()!;
      let results: Array<[string, CountResult]>;
      try {
        results = await server.pool.use((client) => countChunk(server, client, chunk.scripthashes, cap, opts));
      } catch (err) {
        const e = err instanceof UserError ? err : toElectrumError(err);
        if (e instanceof UserError || chunk.attempts >= retries) {
          fatal ??= e instanceof UserError ? e : new UserError(`counting through electrum server ${server.label} failed: ${e.message}`);
          return;
        }
        await sleep(backoffMs * 2 ** chunk.attempts);
        const attempts = chunk.attempts + 1;
        const s = chunk.scripthashes;
        if (s.length > 1 && e.category !== 'throttled') {
          const half = Math.ceil(s.length / 2);
          queue.unshift({ scripthashes: s.slice(0, half), attempts }, { scripthashes: s.slice(half), attempts });
        } else queue.unshift({ scripthashes: s, attempts });
        continue;
      }
      try {
        onChunk(results); // outside the retry: a failure to record is not the server's fault
      } catch (err) {
        fatal ??= err as Error;
      }
    }
  };
  // Workers stop taking chunks after the first fatal error; all are awaited so none records late.
  const settled = await Promise.allSettled(Array.from({ length: Math.min(opts.connections, queue.length) }, worker));
  const crashed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (crashed) throw crashed.reason;
  if (fatal) throw fatal;
}

async function countChunk(
  server: CountServer,
  client: ElectrumClient,
  scripthashes: string[],
  cap: number,
  opts: CountOptions,
): Promise<Array<[string, CountResult]>> {
  const histories = await callMany(client, scripthashes.map((sh) => ({ method: METHOD_RPC.history, params: [sh] })), cap, opts.timeoutMs);
  const results = new Map<string, CountResult>();
  histories.forEach((item, i) => {
    const sh = scripthashes[i];
    if (item.ok) {
      const history = item.result as Array<{ height: number }>;
      results.set(sh, { txCount: confirmedCount(history) });
      return;
    }
    const e = classify(server.profile, item.error);
    if (e.category === 'history-too-large') results.set(sh, { txCount: null });
    else throw e;
  });

  const kept = scripthashes.filter((sh) => {
    const n = results.get(sh)!.txCount;
    return n !== null && inTxRange(n, opts.range);
  });
  const detailCalls = kept.flatMap((sh) => [
    { method: METHOD_RPC.utxos, params: [sh] },
    { method: METHOD_RPC.balance, params: [sh] },
  ]);
  const details = await callMany(client, detailCalls, cap, opts.timeoutMs);
  kept.forEach((sh, i) => {
    const unspent = details[2 * i];
    const balance = details[2 * i + 1];
    if (!unspent.ok) throw classify(server.profile, unspent.error);
    if (!balance.ok) throw classify(server.profile, balance.error);
    const b = balance.result as { confirmed: number; unconfirmed: number };
    results.get(sh)!.detail = {
      utxoCount: confirmedCount(unspent.result as Array<{ height: number }>),
      balance: { confirmed: b.confirmed, unconfirmed: b.unconfirmed },
    };
  });
  return scripthashes.map((sh) => [sh, results.get(sh)!]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
