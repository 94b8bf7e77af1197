/**
 * Dataset lines that name no real address: scripthashes made from `tag` and the line's index, what
 * tests ask local responders about. Each test file keeps its own tag, so two files' datasets differ.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { DatasetLine } from '../../src/core/dataset-line';

/** `n` lines of one transaction and one unspent output of 1 sat each, unless `fill` says otherwise for line i. */
export function syntheticLines(n: number, tag: string, fill: (i: number) => Partial<DatasetLine> = () => ({})): DatasetLine[] {
  return Array.from({ length: n }, (_, i) => ({
    address: null,
    scripthash: createHash('sha256').update(`${tag}${i}`).digest('hex'),
    type: 'nonstandard',
    txCount: 1,
    utxoCount: 1,
    balance: { confirmed: 1, unconfirmed: 0 },
    ...fill(i),
  }));
}

/** The same lines as a dataset file (JSON lines) at `file`. */
export function writeSyntheticDataset(file: string, n: number, tag: string, fill?: (i: number) => Partial<DatasetLine>): void {
  fs.writeFileSync(file, syntheticLines(n, tag, fill).map((l) => JSON.stringify(l)).join('\n') + '\n');
}

/** A line of no history and no balance. */
export const EMPTY: Partial<DatasetLine> = { txCount: 0, utxoCount: 0, balance: { confirmed: 0, unconfirmed: 0 } };
