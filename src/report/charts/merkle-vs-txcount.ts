import type { ChartDef } from './scaling-chart';

/**
 * The proven transaction is the middle of the address's history (src/bench/wallet-subjects.ts),
 * so its position there grows with the history's length. A server that builds the proof from the
 * block's transactions as the node gives them (romanz's electrs keeps none) pays per block, not per
 * history.
 */
export const merkleVsTxCount: ChartDef = {
  id: 'merkle-vs-txcount',
  title: 'transaction.get_merkle latency vs transaction count',
  method: 'merkle',
  x: 'txCount',
};
