/**
 * Where a run's intervals go besides the results database, as k6's `--out NAME=ARG` outputs:
 * one file per output under this directory, registered by name (registry.ts). An output is told
 * each closed interval as it happens and the summary at the end; it only listens, and a slow or
 * failing output never changes what the run measures or stores.
 */
import type { IntervalRecord } from '../../core/load-types';

export interface RunContext {
  /** The run's number in its database. */
  run: number;
  /** "I/N" when the run is one shard of a larger test. */
  shard: string | null;
}

export interface Output {
  /** Once the run is recorded, before its first interval. */
  start(context: RunContext): void;
  interval(record: IntervalRecord): void;
  /** The run's end, with what its summary says (whatever the command prints as JSON); the command waits for it to settle. */
  end(summary: unknown): void | Promise<void>;
}

export interface OutputKind {
  name: string;
  /** What ARG means, for --help and messages. */
  argument: string;
  /** Every problem with ARG, empty when it is fine; checked before any work. */
  validate(argument: string): string[];
  /** Claims what it will write (so a bad path fails before any work) and returns the output. */
  create(argument: string): Output;
}
