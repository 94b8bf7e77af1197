import type { ChartDef } from './scaling-chart';

/** A server that asks its node for the transaction (romanz's electrs keeps none) pays for its size twice: node to server, server to wallet. */
export const txVsTxBytes: ChartDef = {
  id: 'tx-vs-txbytes',
  title: 'transaction.get latency vs transaction size',
  method: 'tx',
  x: 'txBytes',
};
