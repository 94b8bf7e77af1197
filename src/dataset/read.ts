/**
 * Reads a dataset for `filter` and `stats`: every line validated by the shared line parser, so a
 * bad line stops the command with its file and line number.
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { UserError } from '../user-error';
import { DatasetLine, parseDatasetLine } from './line';

export interface ReadDataset {
  file: string;
  contentHash: string;
  lines: DatasetLine[];
}

export function readDatasetFile(file: string, flag: string): ReadDataset {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const lines: DatasetLine[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = parseDatasetLine(raw, `${file}:${i + 1}`);
    const first = seen.get(line.scripthash);
    if (first !== undefined) throw new UserError(`${file}:${i + 1}: scripthash ${line.scripthash} already on line ${first}`);
    seen.set(line.scripthash, i + 1);
    lines.push(line);
  });
  if (lines.length === 0) throw new UserError(`${flag}: ${file} has no lines`);
  return { file, contentHash: createHash('sha256').update(text).digest('hex'), lines };
}
