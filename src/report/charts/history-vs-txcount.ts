import type { ChartDef } from './scaling-chart';

/** get_history returns one entry per transaction, so every server is at least linear here. */
export const historyVsTxCount: ChartDef = {
  id: 'history-vs-txcount',
  title: 'get_history latency vs transaction count',
  method: 'history',
  x: 'txCount',
};
