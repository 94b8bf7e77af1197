/** jest globalTeardown of the unit tier: the build goes with the run. */
import fs from 'node:fs';

export default function globalTeardown(): void {
  const built = process.env.ELECTRUM_BENCH_TEST_BUILD;
  if (built) fs.rmSync(built, { recursive: true, force: true });
}
