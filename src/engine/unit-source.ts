/**
 * What a server's units go through, as the runner (runner.ts) drives them: a transport's
 * connections that every request of the run shares, opened before the schedule starts
 * (iterations/request-units.ts), or nothing shared at all, each unit connecting on its own (a
 * wallet sync, src/wallet/sync-units.ts). The runner owns the schedule, the seconds and the
 * summary; a source owns what a unit is and how what is still under way at the end is cut short.
 */
import { UserError } from '../core/user-error';
import type { IterationContext } from './iteration';
import type { RunClock } from './run-clock';
import type { RequestSink } from './sinks/request-sink';

export interface UnitSource<M extends string = string> {
  /** Opens what the units share; rejects with UnitsNotOpened (a line naming the server) when it cannot. */
  open(): Promise<void>;
  /** The server's software and protocol as it announced them, once open; null when nothing is opened up front. */
  readonly server: { software: string; protocol: string } | null;
  /**
   * The iteration the executor starts units of, each unit's one outcome recorded in `sink`;
   * `failed` when a unit threw rather than ended (the run stops, and fails with `failure`).
   */
  iteration(sink: RequestSink<M>, clock: RunClock, failed: (err: unknown) => void): IterationContext;
  /** Units started and not yet ended. */
  readonly inFlight: number;
  /** How long units still under way when the schedule ends may take to end by themselves, ms. */
  readonly drainMs: number;
  /** Ends whatever is still under way (connections closed, syncs cut short): nothing is recorded after it. */
  close(): void;
  /** Connections the server refused, and when the first was (epoch ms). */
  readonly refused: number;
  readonly firstRefusedAtMs: number | null;
  /** Replies that came after their unit had timed out. */
  lateReplies(): number;
  /** What a unit threw rather than ended with (e.g. a row the database refused): the run fails with it. */
  readonly failure: unknown;
  /** The units and their lateness in the generator check's words ("requests", "went out late (scheduling lag)"). */
  readonly words: { units: string; late: string };
}

/**
 * What the units share could not be opened: nothing was sent. `tookNone`: the server took not even
 * one connection when asked again (refused, or its handshake unanswered), so it is down, not
 * capping our connections per address. The user's to fix when it is a run's first contact with the
 * server; once the run measured something, a server that took none went down, which is news of the
 * run: a search's step it could not start (find-max.ts), a later server not loaded
 * (servers-in-turn.ts).
 */
export class UnitsNotOpened extends UserError {
  constructor(
    message: string,
    readonly tookNone: boolean,
  ) {
    super(message);
  }
}
