import type { ChartDef } from './scaling-chart';

/**
 * The proven transaction is the middle of the address's history (src/bench/wallet-subjects.ts),
 * so its position there grows with the history's length: a server that rebuilds the proof from
 * the whole block (romanz's electrs asks the node for it) is flat here and pays for the block.
 */
export const merkleVsTxCount: ChartDef = {
  id: 'merkle-vs-txcount',
  title: 'transaction.get_merkle latency vs transaction count',
  method: 'merkle',
  x: 'txCount',
};
