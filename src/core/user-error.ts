/**
 * An error the user can cause and fix (bad address, bad dataset line, unreachable server, wrong
 * credentials, wrong network). The CLI prints its one-line message and exits with code 2.
 * Messages must name the offending input and must never contain secrets.
 */
export class UserError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * A user's error that is several, each its own line naming its input (--strict-limits: one per
 * limit a planned run crosses); anywhere a single message is read, they are joined by "; ".
 */
export class UserErrorLines extends UserError {
  constructor(readonly lines: string[]) {
    super(lines.join('; '));
  }
}

export function isUserError(err: unknown): err is UserError {
  return err instanceof UserError;
}

/**
 * A parse that notes its error in `problems` instead of throwing, so one pass over a command line
 * finds every problem with it (reported together, as one line).
 */
export function collecting(problems: string[]): <T>(parse: () => T) => T | undefined {
  return (parse) => {
    try {
      return parse();
    } catch (err) {
      problems.push((err as Error).message);
      return undefined;
    }
  };
}
