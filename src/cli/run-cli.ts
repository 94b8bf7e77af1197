/**
 * The one way every command ends: a UserError prints its single line and exits 2; anything else
 * is a bug and prints its stack (exit 1). Messages never carry credentials: they are built from
 * descriptions that leave them out.
 */
import { hideBin } from 'yargs/helpers';
import { isUserError } from '../core/user-error';
import { releaseClaims } from '../core/output-path';

export type CommandMain = (argv: string[]) => Promise<number | void>;

/**
 * Runs a command's `main` on `argv` to its exit code, whatever it throws: what the process does
 * (runCli) and what a test calls in process. What its claims made and left empty is removed.
 */
export async function runCommand(main: CommandMain, argv: string[]): Promise<number> {
  try {
    const code = await main(argv);
    return code ?? 0;
  } catch (err) {
    return reportError(err);
  } finally {
    releaseClaims();
  }
}

export function runCli(main: CommandMain): void {
  void runCommand(main, hideBin(process.argv)).then((code) => {
    process.exitCode = code;
  });
}

function reportError(err: unknown): number {
  // yargs throws a YError for its own usage checks (e.g. an unreadable --config): the user's to fix.
  if (isUserError(err) || (err as Error)?.name === 'YError') {
    process.stderr.write(`electrum-bench: ${oneLine((err as Error).message)}\n`);
    return 2;
  }
  process.stderr.write(`electrum-bench: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
  return 1;
}

/** An error prints as one line: a message quoting a multi-line input must not break it. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
