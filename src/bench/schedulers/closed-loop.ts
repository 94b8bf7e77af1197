/**
 * Closed-model concurrency: N workers, each sends its next request when its previous one has
 * answered. N = 1 is the sequential mode of the published comparisons (one request in flight).
 */
import type { Scheduler } from './scheduler';

export function schedulerName(concurrency: number, servers = 1): string {
  if (concurrency === 1) return 'sequential';
  return servers > 1 ? `closed-loop x${concurrency} per server` : `closed-loop x${concurrency}`;
}

export class ClosedLoopScheduler implements Scheduler {
  constructor(
    private readonly concurrency: number,
    readonly name = schedulerName(concurrency),
  ) {}

  async run<T>(tasks: Iterator<T>, exec: (task: T) => Promise<void>, stopping: () => boolean): Promise<void> {
    const worker = async () => {
      while (!stopping()) {
        const next = tasks.next();
        if (next.done) return;
        await exec(next.value);
      }
    };
    await Promise.all(Array.from({ length: this.concurrency }, worker));
  }
}
