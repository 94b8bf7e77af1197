/**
 * The OS page cache, emptied on request (`bench --cold`): `sync` first, so dirty pages are written
 * and can be dropped too, then `3` to /proc/sys/vm/drop_caches (page cache, dentries and inodes;
 * Documentation/admin-guide/sysctl/vm.rst). It empties the whole machine's cache, not only the
 * measured servers': every process on the host reads from disk again afterwards.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';

export const DROP_CACHES = '/proc/sys/vm/drop_caches';

/** What this process is: its uid, and where the kernel takes the drop (a test names another file). */
export interface DropFacts {
  uid: number;
  path: string;
}

/** Why this process cannot drop the page cache, in words for "--cold …: WHY"; null when it can. */
export function pageCacheDropProblem(facts: DropFacts = { uid: process.getuid?.() ?? -1, path: DROP_CACHES }): string | null {
  if (facts.uid !== 0) return `dropping the OS page cache needs root, and this process runs as uid ${facts.uid}`;
  try {
    fs.accessSync(facts.path, fs.constants.W_OK);
    return null;
  } catch (err) {
    // A container mounts /proc/sys read-only (EROFS) unless it is privileged.
    return `${facts.path} is not writable here (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
}

/** Writes every dirty page back, then drops the clean ones; resolves once the kernel has. */
export async function dropPageCache(path: string = DROP_CACHES): Promise<void> {
  await promisify(execFile)('sync');
  fs.writeFileSync(path, '3');
}
