/**
 * What is known of each target's limits before it is asked anything, for the pre-flight doctor
 * (src/runs/doctor.ts): its profile's defaults, then, for a server of the running lab, what the
 * lab's configuration sets (the lab is reached here, in the CLI, so no stage knows it). Later
 * findings outrank earlier ones: a stored `limits` run's measured findings go last.
 */
import fs from 'node:fs';
import { knownLimits } from '../servers/known-limits';
import type { ServerTarget } from '../servers/targets';
import type { ServerLimits } from '../runs/doctor';
import { formatServerUrl } from '../core/server-address';
import type { LimitFinding } from '../core/server-limits';
import { UserError } from '../core/user-error';
import { ResultsStore } from '../store/results';
import { LimitStore } from '../store/limit-results';

/** Where `npm run limits` stores its runs unless told otherwise: read by the doctor when it is there. */
export const DEFAULT_LIMITS_DB = 'results/limits.sqlite';

/**
 * `limitsDb`: a database of `limits` runs (read only, never changed); each target's latest
 * findings there, matched by its URL as the limits run stored it. Given by the user and missing or
 * unreadable: refused; the default unreadable: said, and left out.
 */
export async function limitsOf(targets: readonly ServerTarget[], limitsDb?: string): Promise<ServerLimits> {
  const { labLimitsAt } = await import('../lab/lab');
  const measured = measuredLimits(targets, limitsDb);
  return new Map(targets.map((t) => [t.name, [...knownLimits(t.profile), ...(labLimitsAt(t) ?? []), ...(measured.get(t.name) ?? [])]]));
}

function measuredLimits(targets: readonly ServerTarget[], limitsDb: string | undefined): Map<string, LimitFinding[]> {
  const file = limitsDb ?? DEFAULT_LIMITS_DB;
  if (!fs.existsSync(file)) {
    if (limitsDb !== undefined) throw new UserError(`--limits-db ${limitsDb}: no such file (a database of \`npm run limits\` runs)`);
    return new Map();
  }
  let store: ResultsStore;
  try {
    store = ResultsStore.open(file, { readonly: true });
  } catch (err) {
    // The store names its own flag (--db); here the file is --limits-db's, or the default's.
    const why = (err as Error).message.replace(/^--db: /, '').replace(`${file} `, '');
    if (limitsDb !== undefined) throw new UserError(`--limits-db ${file}: cannot be read: ${why}`);
    // Not asked for by name: a stray file there does not stop the run, and is said.
    process.stderr.write(`electrum-bench: warning: the default limits database ${file} cannot be read (${why}); measured limits are left out (--limits-db names another)\n`);
    return new Map();
  }
  try {
    const limits = new LimitStore(store);
    return new Map(targets.map((t) => [t.name, limits.latestFindings(formatServerUrl(t, 'tcp')).map((x) => x.finding)]));
  } finally {
    store.close();
  }
}
