import type { ChartDef } from './scaling-chart';

/** A balance is a sum over unspent outputs: servers that sum at query time scale with this axis. */
export const balanceVsUtxoCount: ChartDef = {
  id: 'balance-vs-utxocount',
  title: 'get_balance latency vs UTXO count',
  method: 'balance',
  x: 'utxoCount',
};
