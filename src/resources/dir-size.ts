/**
 * A data directory's size on disk: allocated blocks of every file below it (like `du`), links not
 * followed. Asynchronous, so a large index directory is walked without holding the event loop.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export async function dirSizeBytes(dir: string): Promise<number | null> {
  let total: number;
  try {
    total = (await fs.lstat(dir)).blocks * 512;
  } catch {
    return null;
  }
  const walk = async (d: string): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return; // removed while we walked (a compaction's temporary file)
    }
    await Promise.all(
      entries.map(async (e) => {
        const p = path.join(d, e.name);
        try {
          const st = await fs.lstat(p);
          total += st.blocks * 512; // not `total += await …`: that would add to a stale total
          if (e.isDirectory()) await walk(p);
        } catch {
          /* gone meanwhile */
        }
      }),
    );
  };
  await walk(dir);
  return total;
}
