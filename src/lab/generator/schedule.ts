/**
 * When an address spends. Spends are spread over the whole run in proportion to what the address
 * has received so far, so long histories interleave receives and spends the way real ones do,
 * while the totals land exactly on the plan at the end.
 */
import type { AddressPlan } from './plan';

export interface SpendProgress {
  txs: number;
  outputs: number;
}

/**
 * The spends due once `roundsDone` fan-out rounds are confirmed, as a list of input counts (one
 * entry per spend transaction); empty when nothing is due.
 */
export function dueSpends(plan: AddressPlan, done: SpendProgress, roundsDone: number): number[] {
  if (plan.spendTxs === 0) return [];
  const received = Math.min(plan.receives, roundsDone);
  const targetTxs = Math.floor((plan.spendTxs * received) / plan.receives);
  const targetOutputs = Math.floor((plan.spentOutputs * received) / plan.receives);
  const txs = Math.min(targetTxs - done.txs, targetOutputs - done.outputs);
  if (txs <= 0) return [];
  // Inputs beyond one per transaction are a budget of spentOutputs - spendTxs; never using more
  // of it than is left guarantees every remaining transaction can still get an input.
  const slack = plan.spentOutputs - plan.spendTxs - (done.outputs - done.txs);
  const inputs = Math.min(targetOutputs - done.outputs, txs + slack);
  const sizes: number[] = [];
  for (let i = 0; i < txs; i++) sizes.push(Math.floor(inputs / txs) + (i < inputs % txs ? 1 : 0));
  return sizes;
}
