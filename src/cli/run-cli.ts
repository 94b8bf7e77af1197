/**
 * The one way every command ends: a UserError prints its single line and exits 2; anything else
 * is a bug and prints its stack (exit 1). Messages never carry credentials: they are built from
 * descriptions that leave them out.
 */
import { isUserError } from '../core/user-error';
import { releaseClaims } from '../core/output-path';

export function runCli(main: () => Promise<number | void>): void {
  main().then(
    (code) => {
      releaseClaims();
      process.exitCode = code ?? 0;
    },
    (err: unknown) => {
      releaseClaims();
      // yargs throws a YError for its own usage checks (e.g. an unreadable --config): the user's to fix.
      if (isUserError(err) || (err as Error)?.name === 'YError') {
        process.stderr.write(`electrum-bench: ${oneLine((err as Error).message)}\n`);
        process.exitCode = 2;
      } else {
        process.stderr.write(`electrum-bench: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
        process.exitCode = 1;
      }
    },
  );
}

/** An error prints as one line: a message quoting a multi-line input must not break it. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
