/**
 * The safety rule of limits and abuse runs: they reach only servers the user may hurt. Loopback
 * (127.0.0.0/8, ::1, and `localhost`, which RFC 6761 §6.3 reserves for it) and the lab's own
 * targets always; any other server only when the user states they operate it
 * (`--i-operate-this-server`, recorded with the run). Checked before any connection is made.
 */
import net from 'node:net';
import { UserError } from '../core/user-error';

/** The flag by which the user states they operate every target of the run. */
export const OPERATED_FLAG = '--i-operate-this-server';

/** A target as the rule sees it: its name for the refusal, its host, and whether the lab made it. */
export interface GuardedTarget {
  name: string;
  host: string;
  lab?: boolean;
}

/** Whether `host` can only be this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (!net.isIPv6(h)) return false;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // An IPv4-mapped address is the IPv4 host it maps.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && mapped[1].startsWith('127.');
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
