/**
 * From counted lines to the dataset: keep the tx-count range and types asked for, then optionally
 * take up to N per history-size bucket so the small addresses (by far the most numerous) do not
 * drown the large ones. The same lines and seed give the same dataset, whatever order the lines
 * arrived in.
 */
import type { DatasetLine } from './line';
import type { Selection } from './options';
import { bucketOf } from './buckets';
import { seededShuffle } from '../core/random';

export function inTxRange(txCount: number, sel: Pick<Selection, 'minTxs' | 'maxTxs'>): boolean {
  return txCount >= sel.minTxs && (sel.maxTxs === null || txCount <= sel.maxTxs);
}

export function select(lines: readonly DatasetLine[], sel: Selection): DatasetLine[] {
  const kept = lines.filter((l) => inTxRange(l.txCount, sel) && (sel.types === null || sel.types.includes(l.type)));
  if (sel.perBucket === null) return sortLines(kept);
  const byBucket = new Map<string, DatasetLine[]>();
  for (const line of kept) {
    const label = bucketOf(line.txCount, sel.buckets).label;
    const group = byBucket.get(label);
    if (group) group.push(line);
    else byBucket.set(label, [line]);
  }
  const chosen: DatasetLine[] = [];
  for (const [label, group] of byBucket) {
    // Sorting first makes the shuffle independent of arrival order; the label in the seed keeps
    // buckets from sharing one permutation.
    const stable = group.slice().sort((a, b) => cmp(a.scripthash, b.scripthash));
    chosen.push(...seededShuffle(stable, `${sel.seed}:${sel.buckets}:${label}`).slice(0, sel.perBucket));
  }
  return sortLines(chosen);
}

/** The order every dataset file is written in: by history size, then scripthash. */
export function sortLines(lines: DatasetLine[]): DatasetLine[] {
  return lines.slice().sort((a, b) => a.txCount - b.txCount || cmp(a.scripthash, b.scripthash));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
