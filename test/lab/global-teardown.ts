/** jest globalTeardown: the lab goes down with the run, unless ELECTRUM_BENCH_LAB_KEEP=1. */
import fs from 'node:fs';
import { labDown } from '../../src/lab/lab';
import { labEnvFile } from './env';

export default async function globalTeardown(): Promise<void> {
  if (process.env.ELECTRUM_BENCH_LAB_KEEP === '1') return;
  await labDown();
  fs.rmSync(labEnvFile(), { force: true });
}
