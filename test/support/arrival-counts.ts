/** Arrival counts of the constant-rate executor, counted off its cursor (test/support/in-worker.ts runs this outside jest's sandbox). */
import { constantArrivals } from '../../src/engine/executors/constant-arrival-rate';

/** How many requests `rate`/s sends in `ms`, for each [rate, ms]. */
export function constantArrivalCounts(runs: Array<[number, number]>): number[] {
  return runs.map(([rate, ms]) => {
    const arrivals = constantArrivals({ kind: 'rate', rate }, ms);
    let n = 0;
    while (arrivals.next() !== Infinity) n++;
    return n;
  });
}
