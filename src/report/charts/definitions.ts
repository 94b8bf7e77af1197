/** The scaling charts (what one is: scaling-chart.ts), and the titles and fits of their size axes. */
import type { ReportMethod, ReportModel } from '../model';
import { balanceVsTxCount } from './balance-vs-txcount';
import { balanceVsUtxoCount } from './balance-vs-utxocount';
import { historyVsTxCount } from './history-vs-txcount';
import { merkleVsTxCount } from './merkle-vs-txcount';
import type { ChartDef, SizeAxis } from './scaling-chart';
import { txVsTxBytes } from './tx-vs-txbytes';
import { utxosVsUtxoCount } from './utxos-vs-utxocount';

/** The four charts of the published comparison, in the order the report shows them. */
export const CHARTS: readonly ChartDef[] = [balanceVsTxCount, balanceVsUtxoCount, historyVsTxCount, utxosVsUtxoCount];

/** The wallet calls' charts, drawn when a selected run measured their method. */
export const WALLET_CALL_CHARTS: readonly ChartDef[] = [txVsTxBytes, merkleVsTxCount];

/** The charts of a bench model: the published four, then those of the wallet calls it holds. */
export function benchCharts(model: ReportModel): ChartDef[] {
  const measured = new Set(model.summaries.map((s) => s.method));
  return [...CHARTS, ...WALLET_CALL_CHARTS.filter((c) => measured.has(c.method))];
}

export const AXIS_TITLE: Record<SizeAxis, string> = {
  txCount: 'transactions in the address history',
  utxoCount: 'unspent outputs of the address',
  txBytes: "bytes of the address's transaction",
};

/** The size a method's latency is fitted against (the tables' slope column). */
export const SLOPE_AXIS: Record<ReportMethod, SizeAxis> = {
  balance: 'txCount',
  history: 'txCount',
  utxos: 'utxoCount',
  tx: 'txBytes',
  merkle: 'txCount',
  header: 'txCount',
  mempool: 'txCount',
};
