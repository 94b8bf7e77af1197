/**
 * The measured methods: what each asks the server, how big its answer is, and whether the answer
 * agrees with the dataset line (for --verify). Only confirmed entries are compared: a dataset
 * describes the chain at its recorded tip, and mempool entries come and go.
 */
import { confirmedCount as countConfirmed } from '../core/confirmed';
import { METHOD_RPC, type MethodName } from '../core/methods';
import type { DatasetLine } from '../core/dataset-line';

export { METHOD_NAMES, isMethodName, type MethodName } from '../core/methods';

export interface MethodSpec {
  name: MethodName;
  rpc: string;
  /** History length, UTXO count, or confirmed balance in satoshis. */
  resultSize(result: unknown): number | null;
  /** A description of the disagreement with the dataset, or null when the answer agrees. */
  mismatch(result: unknown, line: DatasetLine): string | null;
}

const confirmedCount = (r: unknown): number => countConfirmed(r as Array<{ height: number }>);

export const METHODS: Record<MethodName, MethodSpec> = {
  balance: {
    name: 'balance',
    rpc: METHOD_RPC.balance,
    resultSize: (r) => (r && typeof r === 'object' ? Number((r as { confirmed: number }).confirmed) : null),
    mismatch: (r, line) => {
      const b = r as { confirmed: number; unconfirmed: number };
      if (!b || typeof b.confirmed !== 'number') return `not a balance: ${JSON.stringify(r)}`;
      if (b.confirmed !== line.balance.confirmed) return `confirmed ${b.confirmed} != expected ${line.balance.confirmed}`;
      return null;
    },
  },
  history: {
    name: 'history',
    rpc: METHOD_RPC.history,
    resultSize: (r) => (Array.isArray(r) ? r.length : null),
    mismatch: (r, line) => {
      if (!Array.isArray(r)) return `not a history: ${JSON.stringify(r).slice(0, 80)}`;
      const n = confirmedCount(r);
      return n === line.txCount ? null : `${n} confirmed history entries != expected ${line.txCount}`;
    },
  },
  utxos: {
    name: 'utxos',
    rpc: METHOD_RPC.utxos,
    resultSize: (r) => (Array.isArray(r) ? r.length : null),
    mismatch: (r, line) => {
      if (!Array.isArray(r)) return `not a UTXO list: ${JSON.stringify(r).slice(0, 80)}`;
      const n = confirmedCount(r);
      return n === line.utxoCount ? null : `${n} confirmed UTXOs != expected ${line.utxoCount}`;
    },
  },
};
