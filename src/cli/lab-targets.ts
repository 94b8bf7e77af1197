/**
 * The running lab's Electrum servers as bench targets, found through the lab's own status (never
 * guessed from default ports). Resolved here, in the CLI, so the bench itself never knows the lab.
 */
import { UserError } from '../user-error';
import { isProfileName } from '../servers/profiles';
import type { ServerTarget } from '../bench/targets';

export async function labTargets(opts: { quiet?: boolean } = {}): Promise<ServerTarget[]> {
  const { labStatus } = await import('../lab/lab');
  const status = await labStatus();
  const targets: ServerTarget[] = [];
  for (const [name, server] of Object.entries(status.electrum)) {
    if (!server || !server.running || !isProfileName(name)) continue;
    targets.push({ name, profile: name, host: server.host, port: server.port, tls: false });
  }
  if (targets.length === 0 && !opts.quiet) throw new UserError('--lab: no lab server is running; start it with: npm run lab -- up');
  return targets;
}
