/**
 * Sizes checked on every call, not only with --verify: a confirmed history only grows (barring a
 * reorg deeper than the dataset's tip), so an answer smaller than the dataset line is wrong, never
 * a fast success. Growth since the dataset was made is fine. --verify keeps the exact comparison
 * (src/bench/methods.ts); this is the cheap check that catches a server answering "nothing".
 */
import { confirmedCount } from '../core/confirmed';
import type { DatasetLine } from '../core/dataset-line';
import type { MethodName } from '../core/methods';
import type { ServerProfile } from './profiles';

export interface SizeProblem {
  category: 'wrong-size' | 'history-too-large';
  message: string;
}

/** Why the answer is too small for `line`, or null when its size is plausible. */
export function answerSizeProblem(profile: ServerProfile, method: MethodName, result: unknown, line: DatasetLine): SizeProblem | null {
  const found = shortfall(method, result, line);
  if (found === null) return null;
  const limit = profile.silentHistoryLimit;
  if (found.empty && limit && line.txCount >= limit.minHistory) {
    return {
      category: 'history-too-large',
      message: `empty answer for a ${line.txCount}-transaction history: ${profile.name}'s ${limit.setting} refuses it silently (${found.what})`,
    };
  }
  return { category: 'wrong-size', message: found.what };
}

function shortfall(method: MethodName, result: unknown, line: DatasetLine): { what: string; empty: boolean } | null {
  switch (method) {
    case 'history': {
      if (!Array.isArray(result)) return null; // a malformed answer is --verify's (and the protocol's) business
      const n = confirmedCount(result as Array<{ height: number }>);
      return n < line.txCount ? { what: `${n} confirmed history entries, the dataset has ${line.txCount}`, empty: n === 0 } : null;
    }
    case 'utxos': {
      // Confirmed UTXOs may be spent since the dataset was made, so only "none at all" is wrong.
      // Counted without mempool entries: above max_history Fulcrum 2.1 lists only those.
      if (!Array.isArray(result)) return null;
      const n = confirmedCount(result as Array<{ height: number }>);
      return n === 0 && line.utxoCount > 0 ? { what: `no confirmed UTXO, the dataset has ${line.utxoCount}`, empty: true } : null;
    }
    case 'balance': {
      const b = result as { confirmed?: unknown; unconfirmed?: unknown } | null;
      if (!b || typeof b.confirmed !== 'number') return null;
      return b.confirmed === 0 && b.unconfirmed === 0 && line.balance.confirmed > 0
        ? { what: `zero balance, the dataset has ${line.balance.confirmed} sat confirmed`, empty: true }
        : null;
    }
  }
}
