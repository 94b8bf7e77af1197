/**
 * What is known of each target's limits before it is asked anything, for the pre-flight doctor
 * (src/runs/doctor.ts): its profile's defaults, then, for a server of the running lab, what the
 * lab's configuration sets (the lab is reached here, in the CLI, so no stage knows it). Later
 * findings outrank earlier ones: a stored `limits` run's measured findings go last.
 */
import { knownLimits } from '../servers/known-limits';
import type { ServerTarget } from '../servers/targets';
import type { ServerLimits } from '../runs/doctor';

export async function limitsOf(targets: readonly ServerTarget[]): Promise<ServerLimits> {
  const { labLimitsAt } = await import('../lab/lab');
  return new Map(targets.map((t) => [t.name, [...knownLimits(t.profile), ...(labLimitsAt(t) ?? [])]]));
}
