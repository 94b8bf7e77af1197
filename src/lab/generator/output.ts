/**
 * Writes the dataset and its manifest. Each file appears whole or not at all
 * (src/core/atomic-write.ts), so a reader never sees half a dataset, and the manifest is written
 * last because it carries the dataset's hash.
 */
import { createHash } from 'node:crypto';
import { writeFileAtomic } from '../../core/atomic-write';
import { DatasetLine, formatDatasetLine } from '../../dataset/line';
import type { LabManifest } from './manifest';

export function datasetText(lines: DatasetLine[]): string {
  return lines.map((l) => formatDatasetLine(l) + '\n').join('');
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export function writeAtomic(file: string, text: string): void {
  writeFileAtomic(file, text, { mkdir: true });
}

export function writeManifest(file: string, manifest: LabManifest): void {
  writeAtomic(file, JSON.stringify(manifest, null, 2) + '\n');
}
