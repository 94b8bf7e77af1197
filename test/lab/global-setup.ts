/**
 * jest globalSetup: a fresh lab for the run (labUp), or, with ELECTRUM_BENCH_LAB_KEEP=1, the lab
 * that is already up if every component runs at the same tip. Throws (failing the whole run, never
 * skipping) if the lab cannot come up.
 */
import fs from 'node:fs';
import { labDown, labStatus, labUp } from '../../src/lab/lab';
import { envFromStatus, labEnvFile } from './env';

export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[lab] ${line}\n`);
  const keep = process.env.ELECTRUM_BENCH_LAB_KEEP === '1';
  let status = await labStatus();
  // Reuse only a full lab (not one started with --without): the tests use every server.
  if (keep && status.up && status.components.every((c) => c.expected)) {
    log(`reusing the running lab (ELECTRUM_BENCH_LAB_KEEP=1) at height ${status.node.tip}`);
  } else {
    if (status.components.some((c) => c.running)) {
      log('stopping the lab left running, for a fresh one');
      await labDown();
    }
    log('bringing the lab up (npm run lab -- up)');
    status = await labUp({ log });
    if (!status.up) throw new Error(`lab did not come up: ${JSON.stringify(status, null, 2)}`);
  }
  fs.writeFileSync(labEnvFile(), JSON.stringify(envFromStatus(status), null, 2) + '\n');
}
