/**
 * A server's limits as words, the same in the terminal and in the report: the value found or
 * "none up to N tried", what the server does past it, and how long until it serves normally again.
 */
import type { LimitFinding, LimitName, PastLimit } from './server-limits';

const UNIT: Record<LimitName, string> = {
  'connections-per-source': 'connections',
  'connections-total': 'connections',
  'subscriptions-per-connection': 'subscriptions',
  'batch-size': 'requests',
  'request-line-bytes': 'bytes',
  'history-size': 'entries',
  'utxo-count': 'outputs',
  'response-bytes': 'bytes',
};

export const LIMIT_TABLE_HEAD = ['limit', 'served up to', 'past it', 'serving again after', 'how'] as const;

export function valueText(f: Pick<LimitFinding, 'limit' | 'value' | 'triedUpTo'>): string {
  if (f.value === null && f.triedUpTo === 0) return 'not probed';
  if (f.value === null) return `none up to ${f.triedUpTo.toLocaleString('en-US')} tried`;
  return `${f.value.toLocaleString('en-US')} ${UNIT[f.limit]}`;
}

export function pastText(p: PastLimit | null): string {
  if (p === null) return '–';
  switch (p.kind) {
    case 'error':
      return `error${p.code === null ? '' : ` ${p.code}`}: ${p.message}`;
    case 'empty':
      return 'empty answer, no error';
    case 'truncated':
      return 'truncated answer';
    case 'reset':
      return 'connection closed, no answer';
    case 'hang':
      return `no answer within ${(p.afterMs / 1000).toFixed(p.afterMs < 10_000 ? 1 : 0)} s`;
    case 'refused':
      return 'connection refused';
  }
}

export function recoveryText(f: Pick<LimitFinding, 'past' | 'recoveryMs'>): string {
  if (f.past === null) return '–';
  if (f.recoveryMs === null) return 'not measured or never';
  return f.recoveryMs < 1000 ? `${f.recoveryMs} ms` : `${(f.recoveryMs / 1000).toFixed(1)} s`;
}

/** One row per finding, in LIMIT_TABLE_HEAD's columns. */
export function limitRow(f: LimitFinding & { carriedFrom?: number | null }): string[] {
  const carried = f.carriedFrom ? ` (found in run ${f.carriedFrom})` : '';
  return [f.limit, valueText(f), pastText(f.past), recoveryText(f), `${f.note ?? ''}${carried}`];
}
