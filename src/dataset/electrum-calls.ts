/**
 * Many Electrum calls on one connection, in JSON-RPC batches no larger than the server's cap (or
 * one by one, pipelined, for a server that takes no batches).
 */
import { ElectrumClient, BatchItem } from '../electrum/client';
import { ElectrumError, toElectrumError } from '../electrum/errors';

export type Call = { method: string; params: unknown[] };

/**
 * Per-call JSON-RPC errors come back as items for the caller to judge. A call that timed out or
 * lost its connection throws instead: the caller's whole unit of work is then retried.
 */
export async function callMany(client: ElectrumClient, calls: Call[], cap: number, timeoutMs: number): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  if (cap <= 1) {
    const settled = await Promise.allSettled(calls.map((c) => client.call(c.method, c.params, timeoutMs)));
    for (const s of settled) items.push(s.status === 'fulfilled' ? { ok: true, result: s.value.result } : { ok: false, error: toElectrumError(s.reason) });
  } else {
    for (let i = 0; i < calls.length; i += cap) items.push(...(await client.batch(calls.slice(i, i + cap), timeoutMs)).items);
  }
  const broken = items.find((it): it is { ok: false; error: ElectrumError } => !it.ok && it.error.category !== 'server-error');
  if (broken) throw broken.error;
  return items;
}
