/**
 * What a command that ends early (a bug, an escaped error, a second Ctrl-C) must not leave
 * behind: open results databases closed (what they buffered written), a database this process
 * created and stored no run in removed, every claimed output path released.
 */
import { removeCreatedFiles } from '../core/created-file';
import { releaseClaims } from '../core/output-path';
import { closeOpenStores, holdsAnyRun } from '../store/results';

/**
 * What must not be left when a command ends early: each step on its own, so one failing does not
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

