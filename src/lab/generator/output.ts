/**
 * Writes the dataset and its manifest. Each file appears whole or not at all (temp file in the
 * same directory, then rename), so a reader never sees half a dataset, and the manifest is written
 * last because it carries the dataset's hash.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DatasetLine, formatDatasetLine } from '../../dataset/line';
import type { LabManifest } from './manifest';

export function datasetText(lines: DatasetLine[]): string {
  return lines.map((l) => formatDatasetLine(l) + '\n').join('');
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export function writeAtomic(file: string, text: string): void {
  const dir = path.dirname(path.resolve(file));
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`cannot write ${file}: ${(err as Error).message}`);
  }
}

export function writeManifest(file: string, manifest: LabManifest): void {
  writeAtomic(file, JSON.stringify(manifest, null, 2) + '\n');
}
