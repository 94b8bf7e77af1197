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
import { hideBin } from 'yargs/helpers';
import { forgetCreatedFiles } from '../core/created-file';
import { releaseClaims } from '../core/output-path';
import { isUserError, UserErrorLines } from '../core/user-error';
import { leaveNothingHalfWritten } from '../runs/cleanup';
import { errorDetails, withoutSecrets, writeErrorDetails, type EndedBy } from './error-details';

export type CommandMain = (argv: string[]) => Promise<number | void>;

/** What reporting an error said: its exit code and, for a bug, the file holding its details. */
export interface Reported {
  code: number;
  details?: string;
}

/**
 * Runs a command's `main` on `argv` to its exit code, whatever it throws: what the process does
 * (runCli) and what a test calls in process. What its claims made and left empty is removed.
 */
export async function runCommand(main: CommandMain, argv: string[]): Promise<number> {
  return (await runToEnd(main, argv)).code;
}

async function runToEnd(main: CommandMain, argv: string[]): Promise<{ code: number; reported?: Reported }> {
  try {
    return { code: (await main(argv)) ?? 0 };
  } catch (err) {
    const reported = reportError(err);
    return { code: reported.code, reported };
  } finally {
    releaseClaims();
    forgetCreatedFiles();
  }
}

/**
 * `exit`: end the process as soon as the command has ended, whatever it left open (the lab, whose
 * servers' pollers and clients it does not close), or, given as a function, when it says so once
 * the command has ended; otherwise the process ends when nothing is left to run, with the
 * command's exit code.
 */
export function runCli(main: CommandMain, opts: { exit?: boolean | (() => boolean) } = {}): void {
  let reported: Reported | undefined;
  const escaped = (err: unknown, endedBy: EndedBy) => {
    let code = 1;
    try {
      reported = reportError(err, endedBy, reported);
      code = reported.code;
    } finally {
      process.exit(code);
    }
  };
  process.on('uncaughtException', (err) => escaped(err, 'uncaughtException'));
  process.on('unhandledRejection', (reason) => escaped(reason, 'unhandledRejection'));
  void runToEnd(main, hideBin(process.argv)).then((end) => {
    reported = end.reported;
    process.exitCode = end.code;
    if (typeof opts.exit === 'function' ? opts.exit() : opts.exit) process.exit();
  });
}

/**
 * Leaves nothing half written, then prints the error's one line (and writes a bug's details).
 * A process says one error: after `earlier` (often the same failure seen again from a callback),
 * nothing is printed, and the error goes to its details file if it has one.
 */
export function reportError(err: unknown, endedBy: EndedBy = 'rejected', earlier?: Reported): Reported {
  const problems = leaveNothingHalfWritten();
  if (earlier) {
    if (earlier.details) writeErrorDetails(`\nthen, also:\n${errorDetails(err, endedBy, problems)}`, { appendTo: earlier.details });
    return earlier;
  }
  // yargs throws a YError for its own usage checks (e.g. an unreadable --config): the user's to fix.
  if (err instanceof UserErrorLines) {
    for (const line of err.lines) say(oneLine(line));
    return { code: 2 };
  }
  if (isUserError(err) || (err as Error)?.name === 'YError') {
    say(oneLine((err as Error).message));
    return { code: 2 };
  }
  const written = writeErrorDetails(errorDetails(err, endedBy, problems));
  const where = 'file' in written ? `details in ${written.file}` : `its details could not be written (${written.failed})`;
  say(`internal error: ${shortened(oneLine(messageOf(err)))}; ${where}`);
  return { code: 1, details: 'file' in written ? written.file : undefined };
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
