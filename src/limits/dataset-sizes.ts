/**
 * The largest history and UTXO set a server serves, from the dataset's own addresses: one address
 * of each size, ascending, so a search over them finds the largest size answered in full. An answer
 * is checked against the dataset's confirmed count: none where some are due is `empty` (Fulcrum's
 * [] above max_history), fewer is `truncated`.
 */
import type { DatasetLine } from '../core/dataset-line';
import type { ProbeResult } from './search';
import { connectFrom, pastOfError, type ProbeContext } from './probe-context';

export type SizeKind = 'history' | 'utxos';

const METHOD: Record<SizeKind, string> = { history: 'blockchain.scripthash.get_history', utxos: 'blockchain.scripthash.listunspent' };

export function sizeOf(line: DatasetLine, kind: SizeKind): number {
  return kind === 'history' ? line.txCount : line.utxoCount;
}

/** One address per distinct size above 0, smallest first. */
export function addressesBySize(lines: readonly DatasetLine[], kind: SizeKind): DatasetLine[] {
  const bySize = new Map<number, DatasetLine>();
  for (const l of lines) if (sizeOf(l, kind) > 0 && !bySize.has(sizeOf(l, kind))) bySize.set(sizeOf(l, kind), l);
  return [...bySize.values()].sort((a, b) => sizeOf(a, kind) - sizeOf(b, kind));
}

/** Whether the server lists `line`'s whole confirmed history (or UTXO set). */
export async function probeSize(c: ProbeContext, from: string | undefined, line: DatasetLine, kind: SizeKind): Promise<ProbeResult> {
  let client;
  try {
    client = await connectFrom(c, from);
    const out = await client.call<Array<{ height: number }>>(METHOD[kind], [line.scripthash]);
    const confirmed = Array.isArray(out.result) ? out.result.filter((e) => e.height > 0).length : 0;
    const due = sizeOf(line, kind);
    if (confirmed >= due) return { ok: true, bytes: out.responseBytes };
    return { ok: false, past: confirmed === 0 ? { kind: 'empty' } : { kind: 'truncated' } };
  } catch (err) {
    return { ok: false, past: pastOfError(err, c.timeoutMs) };
  } finally {
    client?.close();
  }
}
