import type { ChartDef } from './scaling-chart';

/** A server that fetches the transaction from its node (romanz's electrs) pays for its size there, one that stores it pays on disk. */
export const txVsTxBytes: ChartDef = {
  id: 'tx-vs-txbytes',
  title: 'transaction.get latency vs transaction size',
  method: 'tx',
  x: 'txBytes',
};
