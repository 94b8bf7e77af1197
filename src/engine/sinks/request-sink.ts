/**
 * Where a request's outcome goes. A run's request iteration reports each request to one sink: the
 * HDR intervals (hdr-intervals.ts) alone, or those and the raw samples (--samples) through
 * `fanOut`, so every sink sees the same outcome of the same request, recorded once.
 */
import type { MethodName } from '../../core/methods';
import type { LoadOutcome } from '../../core/load-types';

export interface RequestSink<M extends string = MethodName> {
  /** A request was queued on a connection: it ends in `completed`, or the run's end cuts it short. */
  opened(): void;
  /** A request went out `lagUs` after its intended time, at `atNs` on the run's clock where the sender knows it. */
  sentOne(lagUs: number, atNs?: number): void;
  /** Never sent: every connection's pipeline was full. */
  droppedOne(method: M, intendedNs: number): void;
  /**
   * A reply (or failure) for a request due at `intendedNs`, written at `actualNs`, ended at `endNs`
   * (ns on the run's clock); `wasOpened` false for one no connection took (it never was queued).
   */
  completed(method: M, outcome: LoadOutcome, intendedNs: number, actualNs: number, endNs: number, bytes: number, wasOpened?: boolean): void;
}

/** One request as --samples keeps it (µs on the run's clock). */
export interface RawSample {
  intendedUs: number;
  method: string;
  outcome: string;
  latencyUs: number | null;
  serviceUs: number | null;
}

/** Every request's outcome as a row, for --samples; the runner takes them at each interval's close. */
export class RawSamples implements RequestSink {
  readonly rows: RawSample[] = [];

  opened(): void {}

  sentOne(): void {}

  droppedOne(method: MethodName, intendedNs: number): void {
    this.rows.push({ intendedUs: intendedNs / 1000, method, outcome: 'dropped', latencyUs: null, serviceUs: null });
  }

  completed(method: MethodName, outcome: LoadOutcome, intendedNs: number, actualNs: number, endNs: number): void {
    this.rows.push({ intendedUs: intendedNs / 1000, method, outcome, latencyUs: (endNs - intendedNs) / 1000, serviceUs: (endNs - actualNs) / 1000 });
  }
}

/** One sink that hands every event to each of `sinks`, in order. */
export function fanOut(sinks: RequestSink[]): RequestSink {
  if (sinks.length === 1) return sinks[0];
  // Plain loops: these run several times per request, and a closure per sink per call costs more.
  return {
    opened: () => {
      for (const s of sinks) s.opened();
    },
    sentOne: (lagUs, atNs) => {
      for (const s of sinks) s.sentOne(lagUs, atNs);
    },
    droppedOne: (method, intendedNs) => {
      for (const s of sinks) s.droppedOne(method, intendedNs);
    },
    completed: (method, outcome, intendedNs, actualNs, endNs, bytes, wasOpened) => {
      for (const s of sinks) s.completed(method, outcome, intendedNs, actualNs, endNs, bytes, wasOpened);
    },
  };
}
