/**
 * The only code that writes report files. The directory and every file are created before any
 * chart is rendered, so a bad --out fails at once; every I/O error names the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AtomicWriteError, writeFileAtomic } from '../../core/atomic-write';
import { UserError } from '../../core/user-error';
import { makeDirs } from '../../core/output-path';
import type { OutputFile } from './exporter';

const reason = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

export function prepareOutDir(outDir: string): void {
  try {
    makeDirs(outDir);
  } catch (err) {
    throw new UserError(`--out: cannot create directory ${outDir}: ${reason(err)}`);
  }
  if (!fs.statSync(outDir).isDirectory()) throw new UserError(`--out: ${outDir} is not a directory`);
}

/**
 * Checks now that each file can be written, so a bad path fails before rendering. Opened for
 * append: an earlier report in the same directory stays whole until it is replaced.
 */
export function claimOutputs(outDir: string, names: readonly string[]): void {
  prepareOutDir(outDir);
  for (const name of names) {
    const file = path.join(outDir, name);
    try {
      fs.closeSync(fs.openSync(file, 'a'));
    } catch (err) {
      throw new UserError(`--out: cannot write ${file}: ${reason(err)}`);
    }
  }
}

export function writeOutputs(outDir: string, files: readonly OutputFile[]): string[] {
  return files.map((f) => {
    const file = path.join(outDir, f.name);
    try {
      writeFileAtomic(file, f.data);
    } catch (err) {
      if (err instanceof AtomicWriteError) throw new UserError(`--out: ${err.message}`);
      throw err;
    }
    return f.name;
  });
}
