/**
 * A server's units kept open across the segments of its run (an interleaved run's turns,
 * interleave.ts): its connections are opened at its first turn and closed after its last, as one
 * run's would be, so a turn starts on warm connections, a server that went away meanwhile is an
 * outage of the turn rather than a failure to connect, and no turn pays for connecting. What a
 * segment reports of them (connections refused, late replies) is what happened during it.
 */
import type { UnitSource } from './unit-source';

export interface KeptOpen extends UnitSource {
  /** Closes what the units share, for good: after the server's last turn. */
  end(): void;
}

/** `source` opened once and closed by `end()`, or at once when `stopped()` (a stop ends what is under way). */
export function keptOpen(source: UnitSource, stopped: () => boolean): KeptOpen {
  let opened: Promise<void> | undefined;
  let refusedBefore = 0;
  let lateBefore = 0;
  return {
    open() {
      refusedBefore = source.refused;
      lateBefore = source.lateReplies();
      opened ??= source.open();
      return opened;
    },
    get server() {
      return source.server;
    },
    iteration: (sink, clock, failed) => source.iteration(sink, clock, failed),
    get inFlight() {
      return source.inFlight;
    },
    get drainMs() {
      return source.drainMs;
    },
    close() {
      if (stopped()) source.close();
    },
    end: () => source.close(),
    get refused() {
      return source.refused - refusedBefore;
    },
    // The server's first refusal may have been in an earlier turn: the turns merged take the earliest.
    get firstRefusedAtMs() {
      return source.refused > refusedBefore ? source.firstRefusedAtMs : null;
    },
    lateReplies: () => source.lateReplies() - lateBefore,
    get failure() {
      return source.failure;
    },
    get words() {
      return source.words;
    },
  };
}
