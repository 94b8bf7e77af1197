/** The message of the UserError `fn` throws; fails the test when it throws none, or another kind. */
import { UserError } from '../../src/core/user-error';

export function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}
