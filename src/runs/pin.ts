/** `--cpu`: the generator kept on some CPUs, away from the servers it measures. */
import { pinProcess } from '../core/cpu-set';

/**
 * Pins this process (every thread, the wake clock's worker started later too) to `cpus`, says so,
 * and returns the CPU list the kernel reports for it, which the run records.
 */
export function pinGenerator(cpus: number[], log: (line: string) => void): string {
  const pinned = pinProcess(process.pid, cpus, '--cpu');
  log(`electrum-bench: generator pinned to CPU${cpus.length > 1 ? 's' : ''} ${pinned}`);
  return pinned;
}
