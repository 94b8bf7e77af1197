/**
 * A database that is not ours is never written to: another program's SQLite file given as --db
 * (or a file that is not SQLite at all) would otherwise silently gain our tables. Ours is one
 * with no tables yet, or one our migrations versioned (`user_version` 1 up to ours) holding our
 * run tables.
 * The check reads without writing and leaves the file and its directory byte for byte.
 */
import fs from 'node:fs';
import { UserError } from '../core/user-error';
import { claimOutputFile } from '../core/output-path';
import { openReadOnly } from './read-only';
import { SCHEMA_VERSION } from './schema';

const SQLITE_MAGIC = 'SQLite format 3\0';

export function refuseForeignDatabase(file: string, flag = '--db'): void {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return; // a new database: ours from its first byte
  }
  if (size === 0) return;
  if (!startsWithMagic(file)) throw new UserError(`${flag}: ${file} is not a SQLite database; electrum-bench writes only into its own results databases`);
  let tables: string[];
  let version: number;
  const ro = openReadOnly(file);
  try {
    tables = (ro.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((t) => t.name);
    version = ro.db.pragma('user_version', { simple: true }) as number;
  } catch (err) {
    throw new UserError(`${flag}: ${file} cannot be read as a SQLite database (${(err as Error).message})`);
  } finally {
    ro.close();
  }
  // Every version of ours has `runs` and `samples`, and the servers of a run in `servers` (1–7)
  // or `run_servers` (8 on); a `runs` table alone is too common a name to take a file for ours.
  const ours = version >= 1 && version <= SCHEMA_VERSION && tables.includes('runs') && tables.includes('samples') && (tables.includes('servers') || tables.includes('run_servers'));
  if (tables.length === 0 || ours) return;
  if (version > SCHEMA_VERSION && tables.includes('runs')) {
    throw new UserError(`${flag}: ${file} was written by a newer electrum-bench (schema ${version}; this one knows up to ${SCHEMA_VERSION}); it is left as it is`);
  }
  const shown = tables.length > 5 ? `${tables.slice(0, 5).join(', ')}, …` : tables.join(', ');
  throw new UserError(`${flag}: ${file} is another program's database (tables: ${shown}); electrum-bench writes only into its own results databases`);
}

function startsWithMagic(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.toString('latin1') === SQLITE_MAGIC;
  } finally {
    fs.closeSync(fd);
  }
}

/** SQLite's files beside a database: no other output may be one of them either. */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/** A results database a command will write: claimed as an output path, and refused if not ours. */
export function claimDatabase(file: unknown, flag = '--db'): string {
  const target = claimOutputFile(file, flag, { companions: COMPANIONS });
  refuseForeignDatabase(file as string, flag);
  return target;
}
