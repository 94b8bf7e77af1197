/**
 * The one way every command ends: a UserError prints its single line and exits 2; anything else
 * is a bug and prints its stack (exit 1). Messages never carry credentials: they are built from
 * descriptions that leave them out.
 */
import { isUserError } from '../user-error';

export function runCli(main: () => Promise<number | void>): void {
  main().then(
    (code) => {
      process.exitCode = code ?? 0;
    },
    (err: unknown) => {
      if (isUserError(err)) {
        process.stderr.write(`electrum-bench: ${err.message}\n`);
        process.exitCode = 2;
      } else {
        process.stderr.write(`electrum-bench: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
        process.exitCode = 1;
      }
    },
  );
}
