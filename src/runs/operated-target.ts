/**
 * The safety rule of limits and abuse runs: they reach only servers the user may hurt. Loopback
 * (127.0.0.0/8, ::1, and `localhost`, which RFC 6761 §6.3 reserves for it) and the lab's own
 * targets always; any other server only when the user states they operate it
 * (`--i-operate-this-server`, recorded with the run). Checked before any connection is made.
 */
import { UserError } from '../core/user-error';
import { isLoopbackHost, OPERATE_FLAG } from '../core/target-safety';

/** The flag by which the user states they operate every target of the run (the one `limits` takes). */
export const OPERATED_FLAG = OPERATE_FLAG;
export { isLoopbackHost };

/** A target as the rule sees it: its name for the refusal, its host, and whether the lab made it. */
export interface GuardedTarget {
  name: string;
  host: string;
  lab?: boolean;
}

/**
 * Throws one line (exit 2) naming the first target that is neither loopback nor the lab's, unless
 * `operated` (the flag) was given; `what` names what was asked ("--abuse subscription-flood").
 */
export function refuseUnoperatedTargets(targets: GuardedTarget[], operated: boolean, what: string): void {
  if (operated) return;
  const foreign = targets.find((t) => !t.lab && !isLoopbackHost(t.host));
  if (!foreign) return;
  throw new UserError(`${what}: server ${foreign.name} (${foreign.host}) is not on loopback nor a lab server; it runs only against a server you operate: add ${OPERATED_FLAG} if you do`);
}
