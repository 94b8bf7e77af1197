/**
 * A run session: everything around the engine that every run kind shares, in one place, so each
 * kind's file (src/runs/kinds/) says only what is particular to it.
 *
 *   claim     every output path (the results database, --summary-export, --out, --dashboard-export)
 *             before any work: a bad path, two outputs on one file, an output on an input → exit 2
 *   store     the results database opened, the run record created through the kind's store; a
 *             database this command created and stored no run in is removed at the end
 *   stop      Ctrl-C / SIGTERM / SIGHUP asks the kind to stop; the signal is kept for the exit code
 *   seconds   each closed second fanned out: stored, judged by the thresholds, sent to the outputs,
 *             an abortOnFail threshold aborting the run, a progress line
 *   finish    one status rule (src/core/run-status.ts) and the outcome, handed to the outputs, the
 *             --summary-export file and the command's printer; its exit code by one table
 *             (exit-code.ts)
 *
 * The session knows nothing about terminals: lines for the user go through `log`.
 */
import { fileAboutToBeCreated, type CreatedFile } from '../core/created-file';
import { claimOutputFile } from '../core/output-path';
import { writeFileAtomic } from '../core/atomic-write';
import { statusOf, type FinalStatus, type RunEnding } from '../core/run-status';
import { ResultsStore } from '../store/results';
import { claimDatabase } from '../store/ownership';
import type { OutputSet } from '../engine/outputs/output-set';
import type { AnyIntervalRecord } from '../core/load-types';
import type { LiveState } from '../engine/outputs/output';
import { openOutputs, type WatchPlan } from './outputs';
import { onStopSignal } from './signals';
import { exitCodeOf } from './exit-code';
import type { RunOutcome } from './outcome';

export interface SessionOptions {
  /** The results database; null for a part of a test that writes none (a coordinated shard other than 1). */
  db: string | null;
  /** --summary-export: the outcome's JSON, written at the end. */
  summaryExport?: string;
  /** --out, --dashboard, --dashboard-export. */
  watch: WatchPlan;
  /** What the dashboard's header names. */
  title: string;
  /** --ignore-unanswered: a server that answered nothing does not fail the command. */
  ignoreUnanswered?: boolean;
}

/** The facts of a stop: which signal, if any, asked for it. */
interface Stop {
  signal?: NodeJS.Signals;
}

export class RunSession {
  private created: CreatedFile | undefined;
  private results: ResultsStore | undefined;
  private recorded = false;
  private stop: Stop | undefined;
  private readonly stopListeners: Array<() => void> = [];
  private removeSignals: (() => void) | undefined;

  private constructor(
    readonly options: SessionOptions,
    readonly outputs: OutputSet,
  ) {}

  /**
   * Every output claimed, the dashboard's port taken: before any work, so that a bad path fails
   * in a moment and changes nothing (the claims are released by the command's one handler).
   */
  static async claim(options: SessionOptions): Promise<RunSession> {
    if (options.db !== null) claimDatabase(options.db);
    if (options.summaryExport !== undefined && options.db !== null) claimOutputFile(options.summaryExport, '--summary-export');
    return new RunSession(options, await openOutputs(options.watch, options.title));
  }

  /**
   * A run from its claims to its exit code: `measure` gets the session (outputs claimed) and
   * returns the run's outcome, which the session finishes; closed whatever happens.
   */
  static async run<D>(options: SessionOptions, measure: (session: RunSession) => Promise<RunOutcome<D>>): Promise<{ outcome: RunOutcome<D>; code: number }> {
    const session = await RunSession.claim(options);
    try {
      const outcome = await measure(session);
      return { outcome, code: await session.finish(outcome) };
    } finally {
      await session.close();
    }
  }

  /** The results database (`file`, or the session's --db), opened for the run; created if new. */
  openStore(file = this.options.db): ResultsStore {
    if (file === null) throw new Error('this part of the test writes no database');
    this.created = fileAboutToBeCreated(file);
    this.results = ResultsStore.open(file);
    return this.results;
  }

  /**
   * The run record, made by the kind through its store; the outputs start once it exists. A
   * record that cannot be made leaves no database behind that this command created.
   */
  record<R extends { runId: number }>(make: () => R, shard: string | null = null): R {
    let made: R;
    try {
      made = make();
    } catch (err) {
      this.discard();
      throw err;
    }
    this.recorded = true;
    this.outputs.start({ run: made.runId, shard });
    return made;
  }

  /**
   * The run is finished in the database: it is closed now (its WAL checkpointed), so that the
   * file is whole for what comes next (a shard's database sent to the coordinator).
   */
  closeStore(): void {
    this.results?.close();
    this.results = undefined;
  }

  /** Nothing worth keeping was stored (stopped before the first unit): the database this command created goes. */
  discard(): void {
    this.results?.close();
    this.results = undefined;
    this.created?.remove();
    this.created = undefined;
  }

  /** Whether the database is one this command created (it is removed when the run stores nothing). */
  get createdDatabase(): boolean {
    return this.created !== undefined;
  }

  /**
   * A stop asked for by a signal (or by `requestStop`) calls each listener once. Installed once
   * per session, kept until the command ends: a signal while the summary is written still means
   * "stop" (or, a second one, "exit now").
   */
  onStop(listener: () => void, beforeForcedExit?: () => void): void {
    this.stopListeners.push(listener);
    if (this.stop) listener();
    this.removeSignals ??= onStopSignal((signal) => this.requestStop(signal), beforeForcedExit);
  }

  /** A stop that did not come from a signal of ours (a coordinator's, a dashboard's). */
  requestStop(signal?: NodeJS.Signals): void {
    if (this.stop) return;
    this.stop = { signal };
    for (const l of this.stopListeners) l();
  }

  get stopped(): boolean {
    return this.stop !== undefined;
  }

  /**
   * A listener of a load's closed seconds: each stored, judged, sent to the outputs and shown,
   * in that order, and an abortOnFail threshold that fails aborts the run.
   */
  seconds<S>(to: {
    store: (second: S) => void;
    record: (second: S) => AnyIntervalRecord;
    judge?: (record: AnyIntervalRecord) => { live?: LiveState; abort?: string };
    live?: (second: S) => LiveState | undefined;
    abort?: (reason: string) => void;
    progress?: (second: S) => string | undefined;
    log: (line: string) => void;
  }): (second: S) => void {
    return (second) => {
      to.store(second);
      const record = to.record(second);
      const judged = to.judge?.(record);
      this.outputs.interval(record, judged?.live ?? to.live?.(second));
      if (judged?.abort) to.abort?.(judged.abort);
      const line = to.progress?.(second);
      if (line !== undefined) to.log(line);
    };
  }

  /** The one status rule, on what the kind saw of its ending and the session of its stop. */
  statusOf(ending: Omit<RunEnding, 'stopped'>): FinalStatus {
    return statusOf({ ...ending, stopped: this.stopped });
  }

  /** The signal that stopped the run, for the exit code. */
  get stoppedBy(): NodeJS.Signals | undefined {
    return this.stop?.signal;
  }

  /**
   * The run's end: the outputs get its outcome, --summary-export is written, and its exit code
   * comes from the one table. What an output threw on the way fails the command, the run kept.
   */
  async finish(outcome: RunOutcome): Promise<number> {
    await this.outputs.end(outcome.json);
    if (this.options.summaryExport !== undefined && this.options.db !== null) {
      writeFileAtomic(this.options.summaryExport, JSON.stringify(outcome.json, null, 2) + '\n', { mkdir: true });
    }
    return exitCodeOf({
      status: outcome.status,
      stoppedBy: this.stoppedBy,
      thresholdsFailed: outcome.thresholds.some((t) => !t.pass),
      regressed: outcome.regressed.length > 0,
      // Said silent: it answered none of what it was given, or could not be given anything.
      unanswered: outcome.answering.filter((a) => a.silence !== null).map((a) => a.server),
      ignoreUnanswered: this.options.ignoreUnanswered ?? false,
    });
  }

  /**
   * Whatever happened: the outputs let go of what they took, the database is closed, and one this
   * command created is removed when no run was recorded in it.
   */
  async close(): Promise<void> {
    try {
      await this.outputs.close();
    } finally {
      this.results?.close();
      if (!this.recorded) this.created?.remove();
    }
  }
}
