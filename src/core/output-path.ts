/**
 * Every path a command will write is claimed here before any work: its directory is made (or
 * found writable) and the file itself is known to be creatable or replaceable, so a bad path fails
 * in a moment with one line instead of after an hour of measuring.
 *
 * Node's `mkdirSync(dir, { recursive: true })` spins forever at full CPU when a parent exists but
 * refuses children with ENOENT (anything under /proc): directories are made here one level at a
 * time instead, so every failure is an errno.
 *
 * What a claim created and the command left empty (a directory, a zero-byte file) is removed when
 * the command ends (`releaseClaims`, called by runCli), so a refusal leaves nothing behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from './user-error';

const reasonOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** Like `mkdir -p`; returns the directories it made, outermost first. Throws the failing errno. */
export function makeDirs(dir: string): string[] {
  const missing: string[] = [];
  let existing = path.resolve(dir);
  while (!fs.existsSync(existing)) {
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  if (fs.existsSync(existing) && !fs.statSync(existing).isDirectory()) {
    throw Object.assign(new Error(`${existing} is not a directory`), { code: 'ENOTDIR' });
  }
  const made: string[] = [];
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        removeEmptyDirs(made);
        throw err;
      }
      continue;
    }
    made.push(d);
  }
  return made;
}

interface Claim {
  file?: string;
  dirs: string[];
}

const claims: Claim[] = [];

/**
 * `flag` names the option in messages (e.g. "--db"). An existing file is the user's and stays as
 * it is; `replace: false` refuses it (unless `force`).
 */
export function claimOutputFile(file: unknown, flag: string, opts: { replace?: boolean; force?: boolean } = {}): string {
  if (typeof file !== 'string' || file.trim() === '') throw new UserError(`${flag} needs a file name, got ${JSON.stringify(file ?? '')}`);
  const target = path.resolve(file);
  if (fs.existsSync(target)) {
    const st = fs.statSync(target);
    if (st.isDirectory()) throw new UserError(`${flag}: ${file} is a directory, not a file`);
    if (opts.replace === false && !opts.force) throw new UserError(`${flag}: ${file} already exists (pass --force to replace it)`);
    try {
      fs.accessSync(target, fs.constants.W_OK);
      fs.accessSync(path.dirname(target), fs.constants.W_OK);
    } catch (err) {
      throw new UserError(`${flag}: cannot write ${file}: ${reasonOf(err)}`);
    }
    return target;
  }
  const dirs = claimDirs(path.dirname(target), flag);
  // A probe proves the file can be created (root passes access() checks that the filesystem refuses).
  try {
    fs.closeSync(fs.openSync(target, 'wx'));
    fs.rmSync(target);
  } catch (err) {
    removeEmptyDirs(dirs);
    throw new UserError(`${flag}: cannot create ${file}: ${reasonOf(err)}`);
  }
  claims.push({ file: target, dirs });
  return target;
}

/**
 * A directory a command writes `files` into. One that already holds any of them (an earlier
 * report) is refused unless `force`, as an existing --out file is; other files in it are left be.
 */
export function claimOutputDir(dir: unknown, flag: string, opts: { files: readonly string[]; force?: boolean }): string {
  if (typeof dir !== 'string' || dir.trim() === '') throw new UserError(`${flag} needs a directory, got ${JSON.stringify(dir ?? '')}`);
  const target = path.resolve(dir);
  if (fs.existsSync(target)) {
    if (!fs.statSync(target).isDirectory()) throw new UserError(`${flag}: ${dir} is not a directory`);
    // Zero-byte files are claims a report made and never filled (it failed): no earlier report.
    const existing = opts.files.filter((f) => fileSize(path.join(target, f)) > 0);
    if (!opts.force && existing.length > 0) throw new UserError(`${flag}: ${dir} already holds ${existing.join(', ')} (pass --force to replace them)`);
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch (err) {
      throw new UserError(`${flag}: cannot write to ${dir}: ${reasonOf(err)}`);
    }
    return target;
  }
  claims.push({ dirs: claimDirs(target, flag) });
  return target;
}

function claimDirs(dir: string, flag: string): string[] {
  try {
    return makeDirs(dir);
  } catch (err) {
    throw new UserError(`${flag}: cannot create directory ${dir}: ${reasonOf(err)}`);
  }
}

/** Removes what the claims made and nothing filled: zero-byte files (with SQLite companions), empty directories. */
export function releaseClaims(): void {
  for (const c of claims.splice(0).reverse()) {
    if (c.file !== undefined && isEmptyOrAbsent(c.file)) {
      for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(c.file + suffix, { force: true });
    }
    removeEmptyDirs(c.dirs);
  }
}

function isEmptyOrAbsent(file: string): boolean {
  try {
    return fs.statSync(file).size === 0;
  } catch {
    return true;
  }
}

/** Innermost first; stops at the first that is not empty (something else lives there now). */
function removeEmptyDirs(dirs: string[]): void {
  for (const d of [...dirs].reverse()) {
    try {
      fs.rmdirSync(d);
    } catch {
      return;
    }
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
