import type { ChartDef } from './scaling-chart';

/** Servers that keep a per-address balance answer in constant time; the others walk the history. */
export const balanceVsTxCount: ChartDef = {
  id: 'balance-vs-txcount',
  title: 'get_balance latency vs transaction count',
  method: 'balance',
  x: 'txCount',
};
