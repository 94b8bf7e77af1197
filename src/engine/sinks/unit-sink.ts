/**
 * Where a whole unit's one outcome goes: a bench call's sample, a wallet sync. As `RequestSink`
 * (request-sink.ts) is for load's requests, a runner records each unit once, to one sink, and
 * `allOf` hands it on to each of several in order: the run's rows in the store (sample-rows.ts,
 * sync-rows.ts), the seconds the outputs are given (live-seconds.ts through a command's watcher),
 * the runner's own tally for its summary. So every sink sees the same outcome of the same unit.
 */
export interface UnitSink<U> {
  record(unit: U): void;
}

/** One sink that hands every unit to each of `sinks`, in order (those left undefined skipped). */
export function allOf<U>(sinks: ReadonlyArray<UnitSink<U> | undefined>): UnitSink<U> {
  const each = sinks.filter((s): s is UnitSink<U> => s !== undefined);
  if (each.length === 1) return each[0];
  return { record: (unit) => each.forEach((s) => s.record(unit)) };
}

/** A sink of `U` made from a sink of what `U` carries. */
export function mapped<U, V>(sink: UnitSink<V>, of: (unit: U) => V): UnitSink<U> {
  return { record: (unit) => sink.record(of(unit)) };
}
