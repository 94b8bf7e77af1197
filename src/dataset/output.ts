/**
 * Writes a dataset and its manifest so that a reader never sees half of either (through
 * src/core/atomic-write.ts). Both are staged before either is committed, so a full disk fails
 * before anything is replaced.
 */
import { createHash } from 'node:crypto';
import { AtomicWriteError, discardStagedFiles, stageFile, type StagedFile } from '../core/atomic-write';
import { UserError } from '../core/user-error';
import { DatasetLine, formatDatasetLine } from './line';
import { DatasetManifest, ManifestInput, makeManifest } from './manifest';
import type { OutputPaths } from './options';

export function writeDataset(out: OutputPaths, lines: readonly DatasetLine[], input: ManifestInput): DatasetManifest {
  const text = lines.map((l) => formatDatasetLine(l) + '\n').join('');
  const manifest = makeManifest(out.dataset, lines, createHash('sha256').update(text).digest('hex'), input);
  const dataset = asUserError(() => stageFile(out.dataset, text));
  const manifestFile = asUserError(() => stageFile(out.manifest, JSON.stringify(manifest, null, 2) + '\n'));
  // The dataset goes first: a crash between the renames leaves a manifest whose content hash
  // no longer matches, which is detectable; the other order would not be.
  commit(dataset);
  commit(manifestFile);
  return manifest;
}

/** Removes any temporary file still around (called on interrupt and on failure). */
export function removeTemporaries(): void {
  discardStagedFiles();
}

function commit(file: StagedFile): void {
  asUserError(() => file.commit());
}

function asUserError<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (!(err instanceof AtomicWriteError)) throw err;
    removeTemporaries();
    throw new UserError(err.message);
  }
}
