import type { ChartDef } from './scaling-chart';

/** listunspent returns one entry per unspent output: its natural size is the UTXO count. */
export const utxosVsUtxoCount: ChartDef = {
  id: 'utxos-vs-utxocount',
  title: 'listunspent latency vs UTXO count',
  method: 'utxos',
  x: 'utxoCount',
};
