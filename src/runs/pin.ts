/** `--cpu`: the generator kept on some CPUs, away from the servers it measures; `--realtime`: woken on time. */
import { pinProcess } from '../core/cpu-set';
import { makeRealtime } from '../core/realtime';

/**
 * Pins this process (every thread, the wake clock's worker started later too) to `cpus`, says so,
 * and returns the CPU list the kernel reports for it, which the run records.
 */
export function pinGenerator(cpus: number[], log: (line: string) => void): string {
  const pinned = pinProcess(process.pid, cpus, '--cpu');
  log(`electrum-bench: generator pinned to CPU${cpus.length > 1 ? 's' : ''} ${pinned}`);
  return pinned;
}

/** `--realtime`: every thread of this process under real-time scheduling (src/core/realtime.ts), said and returned for the run's record. */
export function raiseGenerator(log: (line: string) => void): string {
  const policy = makeRealtime(process.pid, '--realtime');
  log(`electrum-bench: generator at real-time priority (${policy}): a send due wakes ahead of every ordinary task, the servers' too`);
  return policy;
}
