/** What a chart is: which method's latency, against which size of address. One file per chart. */
import type { ReportMethod } from '../model';
import { balanceVsTxCount } from './balance-vs-txcount';
import { balanceVsUtxoCount } from './balance-vs-utxocount';
import { historyVsTxCount } from './history-vs-txcount';
import { utxosVsUtxoCount } from './utxos-vs-utxocount';

export type SizeAxis = 'txCount' | 'utxoCount';

export interface ChartDef {
  id: string; // file name stem
  title: string;
  method: ReportMethod;
  x: SizeAxis;
}

/** The four charts of the published comparison, in the order the report shows them. */
export const CHARTS: readonly ChartDef[] = [balanceVsTxCount, balanceVsUtxoCount, historyVsTxCount, utxosVsUtxoCount];

export const AXIS_TITLE: Record<SizeAxis, string> = {
  txCount: 'transactions in the address history',
  utxoCount: 'unspent outputs of the address',
};

/** The size a method's latency is fitted against (the tables' slope column). */
export const SLOPE_AXIS: Record<ReportMethod, SizeAxis> = { balance: 'txCount', history: 'txCount', utxos: 'utxoCount' };
