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

/** A file a command will write or read, by what it is on disk, and the option that named it. */
interface Named {
  identity: string;
  flag: string;
  file: string;
}

/** Every file the command's claims will write, and every input it named, until releaseClaims. */
const written: Named[] = [];
const read: Named[] = [];

/**
 * What a path is on disk: an existing file by device and inode (a hard link or a symlink to it is
 * the same file), a file still to be made by the real path of its nearest existing directory and
 * the rest of its name (`results/../results/a.sqlite` and `./results/a.sqlite` are one).
 */
function identityOf(file: string): string {
  const target = path.resolve(file);
  try {
    const st = fs.statSync(target);
    return `inode:${st.dev}:${st.ino}`;
  } catch {
    // not there yet
  }
  const rest: string[] = [];
  let dir = target;
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) {
    rest.unshift(path.basename(dir));
    dir = path.dirname(dir);
  }
  let real = dir;
  try {
    real = fs.realpathSync(dir);
  } catch {
    // unreadable: its resolved path is the best name it has
  }
  return `path:${path.join(real, ...rest)}`;
}

/**
 * `files` as ones the command will write, refused when another output or an input is the same
 * file (an output written over the results database, or over the dataset the run reads, would
 * destroy it). Checked before anything is made; `keep` notes them once the claim has succeeded.
 */
function unclaimedOutputs(files: readonly string[], flag: string): { keep(): void } {
  const named = files.map((file) => ({ identity: identityOf(file), flag, file }));
  for (const [i, n] of named.entries()) {
    const clash = [...written, ...read, ...named.slice(0, i)].find((o) => o.identity === n.identity);
    if (clash) throw new UserError(clashMessage(n, clash));
  }
  return { keep: () => written.push(...named) };
}

function clashMessage(output: Named, other: Named, otherIsInput = read.includes(other)): string {
  if (otherIsInput) return `${output.flag} ${output.file} is the ${other.flag} file ${other.file}: an output must not overwrite an input; write it elsewhere`;
  return `${output.flag} ${output.file} and ${other.flag} ${other.file} are the same file: give each output a file of its own`;
}

/** Whether two paths name one file (see identityOf). */
export function sameFile(a: string, b: string): boolean {
  return identityOf(a) === identityOf(b);
}

/**
 * An input the command reads (a dataset, a wallets file, a database to merge): refused when an
 * output already claimed is the same file; an output claimed later is checked against it.
 */
export function claimInput(file: string, flag: string): void {
  const identity = identityOf(file);
  const clash = written.find((n) => n.identity === identity);
  if (clash) throw new UserError(clashMessage(clash, { identity, flag, file }, true));
  read.push({ identity, flag, file });
}

/**
 * `flag` names the option in messages (e.g. "--db"). An existing file is the user's and stays as
 * it is; `replace: false` refuses it (unless `force`).
 */
export function claimOutputFile(file: unknown, flag: string, opts: { replace?: boolean; force?: boolean; companions?: readonly string[] } = {}): string {
  if (typeof file !== 'string' || file.trim() === '') throw new UserError(`${flag} needs a file name, got ${JSON.stringify(file ?? '')}`);
  const target = path.resolve(file);
  // Before anything is made: a clash changes nothing.
  const outputs = unclaimedOutputs(['', ...(opts.companions ?? [])].map((suffix) => file + suffix), flag);
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
    outputs.keep();
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
  outputs.keep();
  return target;
}

/**
 * A directory a command writes `files` into. One that already holds any of them (an earlier
 * report) is refused unless `force`, as an existing --out file is; other files in it are left be.
 */
export function claimOutputDir(dir: unknown, flag: string, opts: { files: readonly string[]; force?: boolean }): string {
  if (typeof dir !== 'string' || dir.trim() === '') throw new UserError(`${flag} needs a directory, got ${JSON.stringify(dir ?? '')}`);
  const target = path.resolve(dir);
  const outputs = unclaimedOutputs(opts.files.map((f) => path.join(dir, f)), flag);
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
    outputs.keep();
    return target;
  }
  claims.push({ dirs: claimDirs(target, flag) });
  outputs.keep();
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
  written.length = 0;
  read.length = 0;
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
