/**
 * A run's exit code, from its outcome, in one table for every run kind. The codes a user can
 * script against: docs/guarantees.md#exit-codes.
 *
 * - 0: the run is done and nothing it was asked to judge failed.
 * - 1: a bug (`internal error: …`), 2: a mistake of the user's (one line naming the input); both
 *   leave the run session by a throw and are set by the command's one error handler.
 * - 3: a server answered none of the units it was given (every call timed out, or its connection
 *   closed), or could be given none (a request load's later server that took no connection when
 *   its turn came), as hyperfine fails a command that never succeeds; `--ignore-unanswered` lets
 *   it pass.
 * - 99: a `--threshold` failed, or an A/B verdict is slower than `--fail-on-regression` allows
 *   (k6's code); every result is still written.
 * - 128 + the signal's number: stopped by that signal (130 for Ctrl-C, 143 for SIGTERM, 129 for a
 *   closed terminal), everything measured kept.
 */
import os from 'node:os';
import type { FinalStatus } from '../core/run-status';

export const EXIT_OK = 0;
export const EXIT_BUG = 1;
export const EXIT_USER_ERROR = 2;
export const EXIT_UNANSWERED = 3;
export const EXIT_FAILED_CHECK = 99;

/** What of a finished run decides its exit code. */
export interface ExitFacts {
  status: FinalStatus;
  /** The signal that stopped it, when one did. */
  stoppedBy?: NodeJS.Signals;
  /** A threshold failed (an abortOnFail one included). */
  thresholdsFailed: boolean;
  /** An A/B verdict beyond --fail-on-regression. */
  regressed: boolean;
  /** Servers that answered none of their units. */
  unanswered: readonly string[];
  /** --ignore-unanswered. */
  ignoreUnanswered: boolean;
}

/** The code a stop by `signal` ends a command with, as a shell reports a process killed by it. */
export function stoppedCode(signal: NodeJS.Signals | undefined): number {
  return 128 + (os.constants.signals[signal ?? 'SIGINT'] ?? os.constants.signals.SIGINT);
}

/**
 * The thresholds first: a run cut short by a failing threshold (abortOnFail) or stopped after one
 * failed has still failed its check. A regression is judged only on a run that completed (a verdict
 * needs its rounds), and a server that answered nothing only when nothing else already says so.
 */
export function exitCodeOf(f: ExitFacts): number {
  if (f.thresholdsFailed) return EXIT_FAILED_CHECK;
  if (f.status === 'interrupted') return stoppedCode(f.stoppedBy);
  if (f.regressed && f.status === 'completed') return EXIT_FAILED_CHECK;
  if (f.unanswered.length > 0 && !f.ignoreUnanswered) return EXIT_UNANSWERED;
  return EXIT_OK;
}
