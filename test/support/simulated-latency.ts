/**
 * Seeded latencies for the verdicts' tests: normal deviates, and addresses whose true medians are
 * spread as the lab's are. The same seed gives the same numbers on every run.
 */
import { seededRandom } from '../../src/core/random';

/** A normal deviate (Box–Muller) from a seeded uniform source. */
export function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** 51 addresses' true medians, spread like the lab's (0.2 ms to several ms). */
export function addresses(seed: string, n = 51): number[] {
  const rand = seededRandom(seed);
  return Array.from({ length: n }, () => 0.2 * Math.exp(3 * rand()));
}
