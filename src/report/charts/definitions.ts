/** The four charts of the published comparison: which method, against which size of address. */
import type { ReportMethod } from '../model';

export type SizeAxis = 'txCount' | 'utxoCount';

export interface ChartDef {
  id: string; // file name stem
  title: string;
  method: ReportMethod;
  x: SizeAxis;
}

export const CHARTS: ChartDef[] = [
  { id: 'balance-vs-txcount', title: 'get_balance latency vs transaction count', method: 'balance', x: 'txCount' },
  { id: 'balance-vs-utxocount', title: 'get_balance latency vs UTXO count', method: 'balance', x: 'utxoCount' },
  { id: 'history-vs-txcount', title: 'get_history latency vs transaction count', method: 'history', x: 'txCount' },
  { id: 'utxos-vs-utxocount', title: 'listunspent latency vs UTXO count', method: 'utxos', x: 'utxoCount' },
];

export const AXIS_TITLE: Record<SizeAxis, string> = { txCount: 'transactions in history', utxoCount: 'unspent outputs' };

/** The size a method's latency is fitted against (tables' slope column). */
export const SLOPE_AXIS: Record<ReportMethod, SizeAxis> = { balance: 'txCount', history: 'txCount', utxos: 'utxoCount' };
