/**
 * Reading a database must leave its directory as it was. SQLite opens a WAL-mode database
 * read-only by creating `-wal` and `-shm` beside it, and a read-only connection cannot remove
 * them on close; this build of SQLite takes no `immutable` URI either. So the companions this
 * connection brought into being are removed after it closes, when the `-wal` holds nothing (a
 * writer that appeared meanwhile would have written into it, and then it stays).
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';

export interface ReadOnlyDb {
  readonly db: Database.Database;
  close(): void;
}

export function openReadOnly(file: string): ReadOnlyDb {
  const companions = [`${file}-wal`, `${file}-shm`].filter((f) => !fs.existsSync(f));
  const db = new Database(file, { readonly: true, fileMustExist: true });
  return {
    db,
    close() {
      if (db.open) db.close();
      const wal = `${file}-wal`;
      if (!companions.includes(wal) || sizeOf(wal) !== 0) return;
      for (const f of companions) fs.rmSync(f, { force: true });
    },
  };
}

function sizeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).size;
  } catch {
    return undefined;
  }
}
