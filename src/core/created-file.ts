/**
 * A command that fails before storing anything must not leave behind the database it just
 * created: an empty results file looks like a run happened, and the next command would open it.
 *
 * Each created file is also remembered until it is removed, so an error that ends the process
 * from outside the command's own flow (thrown in a callback: runCli's handler) can still remove
 * the ones that hold nothing.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CreatedFile {
  /** Removes the file, its SQLite companions and the directories made for it (if still empty). */
  remove(): void;
}

const created = new Map<CreatedFile, string>();

/**
 * Call before the file is opened. Returns undefined when the file already exists: then it is the
 * user's and is never removed.
 */
export function fileAboutToBeCreated(file: string): CreatedFile | undefined {
  const target = path.resolve(file);
  if (fs.existsSync(target)) return undefined;
  const newDirs: string[] = [];
  for (let dir = path.dirname(target); !fs.existsSync(dir) && dir !== path.dirname(dir); dir = path.dirname(dir)) {
    newDirs.push(dir);
  }
  const made: CreatedFile = {
    remove() {
      created.delete(made);
      for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(target + suffix, { force: true });
      for (const dir of newDirs) {
        try {
          fs.rmdirSync(dir);
        } catch {
          return; // no longer empty: something else lives there now
        }
      }
    },
  };
  created.set(made, target);
  return made;
}

/** Removes every file created by this process and not removed since for which `holdsNothing` says so. */
export function removeCreatedFiles(holdsNothing: (file: string) => boolean): void {
  for (const [file, target] of [...created]) if (holdsNothing(target)) file.remove();
}

/** A command run in process has ended: what it created and kept is no longer this process's to remove. */
export function forgetCreatedFiles(): void {
  created.clear();
}
