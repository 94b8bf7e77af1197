/**
 * jest globalSetup: a fresh lab for the run (labUp), or, with ELECTRUM_BENCH_LAB_KEEP=1, the lab
 * that is already up if every component runs at the same tip. Throws (failing the whole run, never
 * skipping) if the lab cannot come up. The one exception: the servers built from source (Esplora,
 * Fulcrum: `install.fromSource` in their files) and the real Electrum wallet install from source
 * archives (or git), and where their source cannot be had the run goes without them, and every test
 * of theirs is reported skipped with that reason. A build that fails still fails the run.
 */
import fs from 'node:fs';
import { labDown, labStatus, labUp, runInstall } from '../../src/lab/lab';
import { LAB_SERVERS } from '../../src/lab/servers/registry';
import { isUserError } from '../../src/core/user-error';
import { envFromStatus, labEnvFile, type ArchivedClient, type BuiltFromSource } from './env';

/** Installs each (its install-lab.sh target), or names why it cannot be had here (install-lab.sh's exit 2); a failed build throws. */
async function unavailable<T extends string>(installs: ReadonlyArray<{ name: T; target: string }>, log: (line: string) => void): Promise<Partial<Record<T, string>>> {
  const without: Partial<Record<T, string>> = {};
  for (const { name, target } of installs) {
    try {
      await runInstall([target], log);
    } catch (err) {
      if (!isUserError(err)) throw err;
      without[name] = (err as Error).message;
      log(`going without ${name}: ${without[name]}`);
    }
  }
  return without;
}

export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[lab] ${line}\n`);
  const keep = process.env.ELECTRUM_BENCH_LAB_KEEP === '1';
  // From PyPI in seconds, so a fresh machine's `npm test` has them: the A/B test's second ElectrumX
  // and the real BDK the bdk workload is held to.
  await runInstall(['electrumx@1.20.0', 'bdk'], log);
  const fromSource = LAB_SERVERS.filter((s) => s.install.fromSource).map((s) => ({ name: s.name, target: s.install.target }));
  const without = await unavailable<BuiltFromSource>(fromSource, log);
  // The real Electrum wallet comes from its release archive (../shared/mirror), which a machine may lack.
  const clientsWithout = await unavailable<ArchivedClient>([{ name: 'electrum-wallet', target: 'electrum-wallet' }], log);
  let status = await labStatus();
  // Reuse only a full lab (not one started with --without): the tests use every server.
  // A lab whose chain changed since generation (a notification test mines) has stale datasets.
  if (keep && status.up && !status.changed && status.components.every((c) => c.expected || c.name in without)) {
    log(`reusing the running lab (ELECTRUM_BENCH_LAB_KEEP=1) at height ${status.node.tip}`);
  } else {
    if (status.components.some((c) => c.running)) {
      log('stopping the lab left running, for a fresh one');
      await labDown();
    }
    log('bringing the lab up (npm run lab -- up)');
    status = await labUp({ log, without: Object.keys(without) as BuiltFromSource[] });
    if (!status.up) throw new Error(`lab did not come up: ${JSON.stringify(status, null, 2)}`);
  }
  fs.writeFileSync(labEnvFile(), JSON.stringify(envFromStatus(status, without, clientsWithout), null, 2) + '\n');
}
