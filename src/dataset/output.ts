/**
 * Writes a dataset and its manifest so that a reader never sees half of either: each goes to a
 * temporary file in the same directory and is renamed into place (rename is atomic on POSIX
 * within one filesystem). Temporary files are tracked so an interrupt can remove them.
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { UserError } from '../user-error';
import { DatasetLine, formatDatasetLine } from './line';
import { DatasetManifest, ManifestInput, makeManifest } from './manifest';
import type { OutputPaths } from './options';

const temporaries = new Set<string>();

export function writeDataset(out: OutputPaths, lines: readonly DatasetLine[], input: ManifestInput): DatasetManifest {
  const text = lines.map((l) => formatDatasetLine(l) + '\n').join('');
  const manifest = makeManifest(out.dataset, lines, createHash('sha256').update(text).digest('hex'), input);
  const datasetTmp = writeTemporary(out.dataset, text);
  const manifestTmp = writeTemporary(out.manifest, JSON.stringify(manifest, null, 2) + '\n');
  // The dataset goes first: a crash between the renames leaves a manifest whose content hash
  // no longer matches, which is detectable; the other order would not be.
  commit(datasetTmp, out.dataset);
  commit(manifestTmp, out.manifest);
  return manifest;
}

/** Removes any temporary file still around (called on interrupt and on failure). */
export function removeTemporaries(): void {
  for (const file of temporaries) fs.rmSync(file, { force: true });
  temporaries.clear();
}

function writeTemporary(target: string, data: string): string {
  const tmp = `${target}.tmp-${process.pid}`;
  temporaries.add(tmp);
  try {
    const fd = fs.openSync(tmp, 'w', 0o644);
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    removeTemporaries();
    throw new UserError(`cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return tmp;
}

function commit(tmp: string, target: string): void {
  try {
    fs.renameSync(tmp, target);
  } catch (err) {
    removeTemporaries();
    throw new UserError(`cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  temporaries.delete(tmp);
}
