/**
 * Why an interleaved load run's verdict is a sign test (src/verdicts/verdict.ts, pairsVerdict): simulated
 * runs of N rounds, each round's two turns sharing the machine (a random walk, σ 0.05 a round, and a
 * jolt, σ 0.1) and each turn its own noise (σ 0.06; with --tail, 10 % of turns also slowed by up to
 * e^|N(0,1)|), judged three ways at the 2 % floor: a percentile bootstrap of the median change over
 * the pairs (as the bench's verdicts bootstrap theirs), the same widened by t(n−1)/1.96, and the sign
 * test. Prints the share called a change for identical A and B (per side), and the share of B 10 %
 * slower called `slower`.
 *
 *   npx tsx bench/pairs-verdict-simulation.ts [--runs 1000]
 */
import { pairsVerdict } from '../src/verdicts/verdict';
import { seededRandom } from '../src/core/random';
import { percentile } from '../src/core/quantiles';
import { flag } from './args';

const RUNS = Number(flag('runs', '1000'));
const FLOOR_PCT = 2;
const RESAMPLES = 1000;

const gaussian = (rand: () => number) => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());

/** One run's log changes of B against A, round by round. */
function changes(seed: string, rounds: number, tail: boolean, factor: number): { a: number[]; b: number[] } {
  const rand = seededRandom(seed);
  let level = 0;
  const own = () => (tail && rand() < 0.1 ? Math.exp(Math.abs(gaussian(rand))) : 1) * Math.exp(0.06 * gaussian(rand));
  const a: number[] = [];
  const b: number[] = [];
  for (let k = 0; k < rounds; k++) {
    level += 0.05 * gaussian(rand);
    const now = 2 * Math.exp(level + 0.1 * gaussian(rand));
    a.push(now * own());
    b.push(now * factor * own());
  }
  return { a, b };
}

const lowerMedian = (xs: number[]) => percentile([...xs].sort((x, y) => x - y), 0.5)!;

/** The bootstrap's word: 1 slower, −1 faster, 0 no change. */
function bootstrap(a: number[], b: number[], seed: string, widenByT: boolean): number {
  const logs = a.map((x, i) => Math.log(b[i] / x));
  const rand = seededRandom(seed);
  const draws = Array.from({ length: RESAMPLES }, () => lowerMedian(logs.map(() => logs[Math.floor(rand() * logs.length)]))).sort((x, y) => x - y);
  const n = logs.length;
  // t(n−1) at 97.5 % over 1.96, for the sizes simulated here.
  const t = ({ 9: 2.262, 11: 2.201, 19: 2.093, 29: 2.045 } as Record<number, number>)[n - 1] ?? 1.96;
  const widen = Math.sqrt(n / (n - 1)) * (widenByT ? t / 1.96 : 1);
  const point = lowerMedian(logs);
  const lo = point - (point - draws[Math.floor(0.025 * RESAMPLES)]) * widen;
  const hi = point + (draws[Math.ceil(0.975 * RESAMPLES) - 1] - point) * widen;
  const beyond = Math.abs((Math.exp(point) - 1) * 100) > FLOOR_PCT;
  return lo > 0 && beyond ? 1 : hi < 0 && beyond ? -1 : 0;
}

function signTest(a: number[], b: number[]): number {
  const v = pairsVerdict(a, b, { noiseFloorPct: FLOOR_PCT });
  return v.verdict === 'slower' ? 1 : v.verdict === 'faster' ? -1 : 0;
}

const WAYS: Array<[string, (a: number[], b: number[], seed: string) => number]> = [
  ['bootstrap', (a, b, seed) => bootstrap(a, b, seed, false)],
  ['bootstrap, t-widened', (a, b, seed) => bootstrap(a, b, seed, true)],
  ['sign test', (a, b) => signTest(a, b)],
];

for (const tail of [false, true]) {
  for (const rounds of [10, 12, 20, 30]) {
    const cells = WAYS.map(([name, judge]) => {
      let slower = 0;
      let faster = 0;
      let power = 0;
      for (let k = 0; k < RUNS; k++) {
        const same = changes(`aa ${rounds} ${tail} ${k}`, rounds, tail, 1);
        const word = judge(same.a, same.b, `boot ${k}`);
        if (word > 0) slower++;
        if (word < 0) faster++;
        const moved = changes(`ab ${rounds} ${tail} ${k}`, rounds, tail, 1.1);
        if (judge(moved.a, moved.b, `boot ${k}`) > 0) power++;
      }
      return `${name} ${((100 * (slower + faster)) / RUNS).toFixed(1)} % (${slower} slower / ${faster} faster), +10 % found ${((100 * power) / RUNS).toFixed(0)} %`;
    });
    console.log(`${rounds} rounds${tail ? ', heavy tail' : ''}: ${cells.join('; ')}`);
  }
}
