/**
 * One shard of a larger load test: shard I of N runs on its own process or machine and takes its
 * share of everything that scales with load (rate, connections, VUs, dataset lines), so that the N
 * shards together are the whole test and `load merge` can add their intervals back up.
 */
import { UserError } from './user-error';

export interface Shard {
  index: number; // 1-based: I of "I/N"
  count: number; // N
}

/** `"2/4"` → `{ index: 2, count: 4 }`. `what` names the input in the error (an option, a file). */
export function parseShard(text: string, what = '--shard'): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new UserError(`${what}: expected I/N with 1 <= I <= N, got ${JSON.stringify(text)}`);
  }
  return { index, count };
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * The shard's share of an integer count (connections, VUs). The remainder goes one each to the
 * first shards, so the shares differ by at most one and always sum to `total` (10 over 4: 3,3,2,2);
 * a shard may get 0 when the total is smaller than N.
 */
export function shareOf(shard: Shard | undefined, total: number): number {
  if (!shard) return total;
  return Math.floor(total / shard.count) + (shard.index <= total % shard.count ? 1 : 0);
}

/** The shard's share of a rate (requests/s): rates are fractional, so an even split sums back exactly enough. */
export function rateShareOf(shard: Shard | undefined, rate: number): number {
  return shard ? rate / shard.count : rate;
}

/**
 * The dataset lines shard I of N queries: every line whose index ≡ I−1 (mod N). Interleaving,
 * rather than cutting the file into blocks, gives each shard the same mix of history sizes when the
 * dataset is ordered by history size.
 */
export function linesOfShard<T>(lines: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...lines];
  return lines.filter((_, i) => i % shard.count === shard.index - 1);
}
