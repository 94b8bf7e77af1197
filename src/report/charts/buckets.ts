/**
 * Per-server summaries of per-address medians over log2 size buckets: the median line and the
 * best/worst band drawn over the points.
 */
import { medianOf as median } from '../median';
import type { MedianPoint } from '../model';
import type { SizeAxis } from './scaling-chart';

export interface BucketRow {
  server: string;
  x: number; // median size of the bucket's addresses: the line never runs past the data
  median: number;
  lo: number;
  hi: number;
  n: number;
}

/** Bucket k holds sizes in [2^k, 2^(k+1)); size 0 has a bucket of its own. */
export function bucketOf(size: number): number {
  return size <= 0 ? -1 : Math.floor(Math.log2(size));
}

export function bucketRows(points: MedianPoint[], axis: SizeAxis): BucketRow[] {
  const groups = new Map<string, { server: string; sizes: number[]; values: number[] }>();
  for (const p of points) {
    const size = p[axis];
    if (p.medianMs === null || size === null) continue;
    const bucket = bucketOf(size);
    const key = `${p.server}\u0000${bucket}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { server: p.server, sizes: [], values: [] }));
    g.sizes.push(size);
    g.values.push(p.medianMs);
  }
  const rows: BucketRow[] = [];
  for (const g of groups.values()) {
    g.values.sort((a, b) => a - b);
    g.sizes.sort((a, b) => a - b);
    rows.push({ server: g.server, x: median(g.sizes)!, median: median(g.values)!, lo: g.values[0], hi: g.values[g.values.length - 1], n: g.values.length });
  }
  return rows.sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : a.x - b.x));
}
