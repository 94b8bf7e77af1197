import Database from 'better-sqlite3';

/**
 * The `n` that `sql` (`SELECT count(*) AS n …`) reads from `db`, or 0 while another process is still
 * creating it (no file, no table yet, locked): for waiting on a command's progress.
 */
export function countIn(db: string, sql: string): number {
  try {
    const c = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (c.prepare(sql).get() as { n: number }).n;
    } finally {
      c.close();
    }
  } catch {
    return 0;
  }
}
