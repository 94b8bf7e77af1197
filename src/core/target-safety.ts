/**
 * Who may be probed past their limits. `limits` (and the abuse profiles after it) send what a
 * server may take for an attack: it targets this machine (127.0.0.0/8, ::1, `localhost`, the lab)
 * unless the user states they operate the server, with OPERATE_FLAG, which the run records. The
 * check runs before any connection and never resolves a name: a host that only a resolver could
 * call loopback is not taken as one.
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

/**
 * Throws the one line that refuses a probe of servers not on this machine, unless `operates` (the
 * user gave OPERATE_FLAG). `command` names what refuses (`limits`).
 */
export function refuseUnlessOperated(command: string, targets: ReadonlyArray<{ name: string; host: string }>, operates: boolean): void {
  if (operates) return;
  const remote = targets.filter((t) => !isLoopbackHost(t.host));
  if (remote.length === 0) return;
  const named = remote.map((t) => `${t.name} (${t.host})`).join(', ');
  throw new UserError(
    `${command} pushes servers past their limits and targets loopback or --lab only: ${named} is not on this machine; if you operate it, say so with ${OPERATE_FLAG}`,
  );
}
