/**
 * Who may be probed past their limits. `limits` and the abuse profiles send what a server may take
 * for an attack: they target this machine (127.0.0.0/8, ::1, and `localhost`, which RFC 6761 §6.3
 * reserves for it) and the lab's servers, unless the user states they operate the server, with
 * OPERATE_FLAG, which the run records. The check runs before any connection and never resolves a
 * name: a host that only a resolver could call loopback is not taken as one.
 */
import net from 'node:net';
import { UserError } from './user-error';

export const OPERATE_FLAG = '--i-operate-this-server';

/** Whether `host` (as written in a target) is this machine without asking a resolver. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) {
    if (h === '::1' || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(h)) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped !== null && mapped[1].startsWith('127.');
  }
  return false;
}

/** A target as the rule sees it: its name for the refusal, its host, and whether the lab made it. */
export interface GuardedTarget {
  name: string;
  host: string;
  lab?: boolean;
}

/**
 * Throws the one line (exit 2) that refuses a probe of servers neither on this machine nor the
 * lab's, unless `operates` (the user gave OPERATE_FLAG). `what` names what refuses (`limits`,
 * `--abuse subscription-flood`).
 */
export function refuseUnlessOperated(what: string, targets: readonly GuardedTarget[], operates: boolean): void {
  if (operates) return;
  const remote = targets.filter((t) => !t.lab && !isLoopbackHost(t.host));
  if (remote.length === 0) return;
  const named = remote.map((t) => `${t.name} (${t.host})`).join(', ');
  throw new UserError(
    `${what} pushes servers past their limits and targets loopback or --lab only: ${named} is not on this machine; if you operate it, say so with ${OPERATE_FLAG}`,
  );
}
