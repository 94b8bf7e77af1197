/**
 * A run's outputs as one: each is told the same thing in turn. The command opens them before any
 * work, and closes them whatever happened (a failed or stopped run never reaches end()).
 */
import type { AnyIntervalRecord } from '../../core/load-types';
import type { LiveState, Output, RunContext } from './output';

export class OutputSet {
  constructor(readonly outputs: Output[]) {}

  get empty(): boolean {
    return this.outputs.length === 0;
  }

  async open(): Promise<void> {
    for (const o of this.outputs) await o.open?.();
  }

  start(context: RunContext): void {
    for (const o of this.outputs) o.start(context);
  }

  interval(record: AnyIntervalRecord, live?: LiveState): void {
    for (const o of this.outputs) o.interval(record, live);
  }

  /** Every output gets the end, whatever another did with it; then the first that failed says why. */
  async end(summary: unknown): Promise<void> {
    const ended = await Promise.allSettled(this.outputs.map(async (o) => o.end(summary)));
    const failed = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async close(): Promise<void> {
    await Promise.all(this.outputs.map((o) => o.close?.()));
  }
}
