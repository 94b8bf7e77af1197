/**
 * The one way every command ends. A UserError prints its single line and exits 2; anything else
 * is a bug: one line saying where its details are (src/cli/error-details.ts: the stack, the
 * command line without its secrets), exit 1, never a stack on stderr.
 *
 * The same handler takes what the command throws and what escapes it: an error thrown in a socket
 * or timer callback (uncaughtException) or a promise nobody awaited (unhandledRejection), which
 * Node would otherwise print as a stack of its own. Such an error leaves the run in a state
 * nothing can finish, so the process exits once the handler is done, and the handler first leaves
 * nothing half written: open results databases closed (what they buffered written), a database
 * this process created and stored no run in removed, every claimed output path released.
 */
import { inspect } from 'node:util';
import { removeCreatedFiles } from '../core/created-file';
import { releaseClaims } from '../core/output-path';
import { isUserError } from '../core/user-error';
import { closeOpenStores, holdsAnyRun } from '../store/results';
import { errorDetails, withoutSecrets, writeErrorDetails, type EndedBy } from './error-details';

/**
 * `exit`: end the process as soon as the command has ended, whatever it left open (the lab, whose
 * servers' pollers and clients it does not close); otherwise the process ends when nothing is left
 * to run, with the command's exit code.
 */
export function runCli(main: () => Promise<number | void>, opts: { exit?: boolean } = {}): void {
  process.on('uncaughtException', (err) => exitOnEscape(err, 'uncaughtException'));
  process.on('unhandledRejection', (reason) => exitOnEscape(reason, 'unhandledRejection'));
  main().then(
    (code) => {
      releaseClaims();
      process.exitCode = code ?? 0;
      if (opts.exit) process.exit();
    },
    (err: unknown) => {
      process.exitCode = endWithError(err, 'rejected');
      if (opts.exit) process.exit();
    },
  );
}

/** The first error reported, and its details file if it was a bug: a process reports one error. */
let reported: { code: number; details?: string } | undefined;

/**
 * Leaves nothing half written, then prints the error's one line (and writes a bug's details);
 * returns the exit code. Only the first error of a process is reported: a later one (often the
 * first seen again from a callback) adds to the details file if there is one.
 */
export function endWithError(err: unknown, endedBy: EndedBy = 'rejected'): number {
  const problems = leaveNothingHalfWritten();
  if (reported) {
    if (reported.details) writeErrorDetails(`\nthen, also:\n${errorDetails(err, endedBy, problems)}`, { appendTo: reported.details });
    return reported.code;
  }
  // yargs throws a YError for its own usage checks (e.g. an unreadable --config): the user's to fix.
  if (isUserError(err) || (err as Error)?.name === 'YError') {
    reported = { code: 2 };
    say(oneLine((err as Error).message));
    return 2;
  }
  const written = writeErrorDetails(errorDetails(err, endedBy, problems));
  reported = { code: 1, details: 'file' in written ? written.file : undefined };
  const where = 'file' in written ? `details in ${written.file}` : `its details could not be written (${written.failed})`;
  say(`internal error: ${shortened(oneLine(messageOf(err)))}; ${where}`);
  return 1;
}

/**
 * What must not be left when a process ends early: each step on its own, so one failing does not
 * keep the others from running. Returns what failed (for a bug's details).
 */
export function leaveNothingHalfWritten(): string[] {
  const problems: string[] = [];
  const step = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      problems.push(`while ${what}: ${(err as Error)?.stack ?? String(err)}`);
    }
  };
  step('closing the open results databases', closeOpenStores);
  step('removing a database that holds no run', () => removeCreatedFiles((file) => !holdsAnyRun(file)));
  step('releasing the claimed output paths', releaseClaims);
  return problems;
}

function exitOnEscape(err: unknown, endedBy: EndedBy): void {
  let code = 1;
  try {
    code = endWithError(err, endedBy);
  } finally {
    process.exit(code);
  }
}

function say(line: string): void {
  process.stderr.write(`electrum-bench: ${withoutSecrets(line)}\n`);
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message ? `${err.name}: ${err.message}` : err.name;
  return inspect(err, { breakLength: Infinity, depth: 2 });
}

/** An error prints as one line: a message quoting a multi-line input must not break it. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

/** A bug's message on stderr, cut short: the whole of it is in the details. */
function shortened(message: string): string {
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
