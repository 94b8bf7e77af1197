/** The scaling charts (what one is: scaling-chart.ts), and the titles and fits of their size axes. */
import type { ReportMethod } from '../model';
import { balanceVsTxCount } from './balance-vs-txcount';
import { balanceVsUtxoCount } from './balance-vs-utxocount';
import { historyVsTxCount } from './history-vs-txcount';
import type { ChartDef, SizeAxis } from './scaling-chart';
import { utxosVsUtxoCount } from './utxos-vs-utxocount';

/** The four charts of the published comparison, in the order the report shows them. */
export const CHARTS: readonly ChartDef[] = [balanceVsTxCount, balanceVsUtxoCount, historyVsTxCount, utxosVsUtxoCount];

export const AXIS_TITLE: Record<SizeAxis, string> = {
  txCount: 'transactions in the address history',
  utxoCount: 'unspent outputs of the address',
};

/** The size a method's latency is fitted against (the tables' slope column). */
export const SLOPE_AXIS: Record<ReportMethod, SizeAxis> = { balance: 'txCount', history: 'txCount', utxos: 'utxoCount' };
