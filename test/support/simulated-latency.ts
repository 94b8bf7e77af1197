/**
 * Seeded latencies for the verdicts' tests: normal deviates, addresses whose true medians are
 * spread as the lab's are, and bench runs over them. The same seed gives the same numbers on every
 * run.
 */
import { seededRandom } from '../../src/core/random';
import { pairedVerdict, type Verdict } from '../../src/verdicts/verdict';

/** A normal deviate (Box–Muller) from a seeded uniform source. */
export function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** 51 addresses' true medians, spread like the lab's (0.2 ms to several ms). */
export function addresses(seed: string, n = 51): number[] {
  const rand = seededRandom(seed);
  return Array.from({ length: n }, () => 0.2 * Math.exp(3 * rand()));
}

/**
 * One run: `passes` passes over the addresses, each value the true median times `factor`, times the
 * pass's drift (the machine over time, every address alike, `drift`), times its own noise (`sigma`).
 */
export function simulatedRun(truth: number[], seed: string, factor = 1, { passes = 9, drift = 0.08, sigma = 0.1 } = {}): number[][] {
  const rand = seededRandom(seed);
  return Array.from({ length: passes }, () => {
    const moved = Math.exp(drift * gaussian(rand));
    return truth.map((t) => t * factor * moved * Math.exp(sigma * gaussian(rand)));
  });
}

/**
 * The verdicts of A/A pairs `from` to `to` (excluded): two runs of the same addresses, noise and
 * drift alone between them, each pair with its own seeds, at the default floor and 500 resamples.
 * Seconds of bootstrap each hundred: test/support/in-worker.ts runs them in threads of their own.
 */
export function aaVerdicts(from: number, to: number): Array<Verdict['verdict']> {
  const verdicts: Array<Verdict['verdict']> = [];
  for (let k = from; k < to; k++) {
    const truth = addresses(`aa ${k}`);
    verdicts.push(pairedVerdict(simulatedRun(truth, `a ${k}`), simulatedRun(truth, `b ${k}`), { seed: `boot ${k}`, resamples: 500 }).verdict);
  }
  return verdicts;
}
