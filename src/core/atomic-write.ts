/**
 * Files that appear whole or not at all: the data goes to a temporary file in the target's own
 * directory (rename is atomic only within one filesystem), is fsynced, renamed over the target, and
 * the directory is fsynced so the rename itself survives a power cut. Without the first fsync a
 * crash soon after the rename can leave an empty file under the final name (ext4 delayed
 * allocation). Staged files are remembered so an interrupt can remove what was not committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeDirs } from './output-path';

/** `reason` is the errno code when there is one (ENOENT, EACCES …), short enough for one line. */
export class AtomicWriteError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`cannot write ${file}: ${reason}`);
    this.name = 'AtomicWriteError';
  }
}

/** Written and synced under a temporary name; `commit()` puts it in place. */
export interface StagedFile {
  readonly target: string;
  readonly temporary: string;
  commit(): void;
  discard(): void;
}

const staged = new Set<string>();

const reasonOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

export function stageFile(target: string, data: string | Uint8Array, opts: { mode?: number; mkdir?: boolean } = {}): StagedFile {
  const dir = path.dirname(path.resolve(target));
  const temporary = path.join(dir, `.${path.basename(target)}.tmp-${process.pid}`);
  staged.add(temporary);
  const discard = () => {
    fs.rmSync(temporary, { force: true });
    staged.delete(temporary);
  };
  try {
    if (opts.mkdir) makeDirs(dir);
    const fd = fs.openSync(temporary, 'w', opts.mode ?? 0o644);
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    discard();
    throw new AtomicWriteError(target, reasonOf(err));
  }
  return {
    target,
    temporary,
    discard,
    commit: () => {
      try {
        fs.renameSync(temporary, target);
      } catch (err) {
        discard();
        throw new AtomicWriteError(target, reasonOf(err));
      }
      staged.delete(temporary);
      syncDirectory(dir);
    },
  };
}

export function writeFileAtomic(target: string, data: string | Uint8Array, opts: { mode?: number; mkdir?: boolean } = {}): void {
  stageFile(target, data, opts).commit();
}

/** Removes every staged file not yet committed (on interrupt or failure). */
export function discardStagedFiles(): void {
  for (const file of staged) fs.rmSync(file, { force: true });
  staged.clear();
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms (Windows) and filesystems cannot open or sync a directory; the rename has
    // happened, only its durability across a power cut is then up to the filesystem.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
