/**
 * History-size buckets on a log scale: log10 gives 1-9, 10-99, 100-999 …; log2 gives 1, 2-3,
 * 4-7 …. Bounds come from integer arithmetic, not Math.log, whose rounding at exact powers
 * (log10(1000)) is not guaranteed.
 */
export const BUCKET_SCHEMES = ['log10', 'log2'] as const;
export type BucketScheme = (typeof BUCKET_SCHEMES)[number];

export interface Bucket {
  low: number; // inclusive
  high: number; // inclusive
  label: string;
}

export function bucketOf(txCount: number, scheme: BucketScheme): Bucket {
  if (txCount <= 0) return { low: 0, high: 0, label: '0' };
  const base = scheme === 'log10' ? 10 : 2;
  let low = 1;
  while (low * base <= txCount) low *= base;
  const high = low * base - 1;
  return { low, high, label: low === high ? String(low) : `${low}-${high}` };
}

/** Counts per bucket label, in ascending bucket order. */
export function histogram(txCounts: Iterable<number>, scheme: BucketScheme): Array<{ bucket: Bucket; count: number }> {
  const byLow = new Map<number, { bucket: Bucket; count: number }>();
  for (const n of txCounts) {
    const b = bucketOf(n, scheme);
    const entry = byLow.get(b.low);
    if (entry) entry.count++;
    else byLow.set(b.low, { bucket: b, count: 1 });
  }
  return [...byLow.values()].sort((a, b) => a.bucket.low - b.bucket.low);
}
