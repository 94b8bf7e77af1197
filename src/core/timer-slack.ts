/**
 * Linux's timer slack (proc(5), /proc/[pid]/timerslack_ns): how much later than asked the kernel
 * may end a thread's timed sleeps (futex and epoll timeouts, nanosleep), so that it can serve
 * several with one interrupt. It is 50 µs for an ordinary thread, and on an idle core a sleep
 * ends about that much late every time: on the project's VM a 2 ms Atomics.wait overslept by a
 * median of 78–90 µs at 50 µs of slack and 33–36 µs at 1 ns (2026-11-28 findings). A thread
 * may set its own without privileges; only the main thread's is reachable by that file (it names
 * the thread group's leader), and threads and processes it starts afterwards inherit the value.
 */
import fs from 'node:fs';

const FILE = '/proc/self/timerslack_ns';

/** This (main) thread's timer slack in ns, or null where the system does not say (not Linux, no /proc). */
export function timerSlackNs(): number | null {
  try {
    const ns = Number(fs.readFileSync(FILE, 'utf8').trim());
    return Number.isInteger(ns) && ns >= 0 ? ns : null;
  } catch {
    return null;
  }
}

/** Sets it (at least 1 ns: 0 means "back to the default" to the kernel); false where it cannot be set. */
export function setTimerSlackNs(ns: number): boolean {
  try {
    fs.writeFileSync(FILE, String(Math.max(1, Math.round(ns))));
    return true;
  } catch {
    return false;
  }
}
