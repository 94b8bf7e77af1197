/**
 * `dataset stats`: how a dataset spreads over history-size buckets, overall and by script type.
 */
import { median } from '../core/quantiles';
import { textTable } from '../core/text-table';
import type { DatasetLine } from './line';
import { ADDRESS_TYPES } from './line';
import { BucketScheme, bucketOf, histogram } from './buckets';

export interface DatasetStats {
  lines: number;
  scheme: BucketScheme;
  types: string[]; // the types present, in the canonical order
  buckets: Array<{ label: string; low: number; high: number; count: number; byType: Record<string, number> }>;
  byType: Record<string, number>;
  txCount: { min: number; median: number; max: number; total: number };
}

export function datasetStats(lines: readonly DatasetLine[], scheme: BucketScheme): DatasetStats {
  const byType: Record<string, number> = {};
  const buckets = histogram(lines.map((l) => l.txCount), scheme).map(({ bucket, count }) => ({ ...bucket, count, byType: {} as Record<string, number> }));
  const byLow = new Map(buckets.map((b) => [b.low, b]));
  for (const l of lines) {
    byType[l.type] = (byType[l.type] ?? 0) + 1;
    const b = byLow.get(bucketOf(l.txCount, scheme).low)!;
    b.byType[l.type] = (b.byType[l.type] ?? 0) + 1;
  }
  const sorted = lines.map((l) => l.txCount).sort((a, b) => a - b);
  return {
    lines: lines.length,
    scheme,
    types: ADDRESS_TYPES.filter((t) => byType[t] !== undefined),
    buckets,
    byType,
    txCount: {
      min: sorted[0] ?? 0,
      median: median(sorted) ?? 0,
      max: sorted[sorted.length - 1] ?? 0,
      total: sorted.reduce((a, b) => a + b, 0),
    },
  };
}

export function statsTable(s: DatasetStats): string {
  const header = ['txs', 'lines', 'share', ...s.types];
  const rows = s.buckets.map((b) => [b.label, String(b.count), pct(b.count, s.lines), ...s.types.map((t) => String(b.byType[t] ?? 0))]);
  rows.push(['all', String(s.lines), pct(s.lines, s.lines), ...s.types.map((t) => String(s.byType[t] ?? 0))]);
  const t = s.txCount;
  return [
    textTable(header, rows, { align: header.map((_, i) => (i === 0 ? 'left' : 'right')), rulesBefore: [rows.length - 1] }),
    '',
    `txCount: min ${t.min}, median ${t.median}, max ${t.max}, sum ${t.total} (${s.scheme} buckets)`,
  ].join('\n');
}

function pct(n: number, of: number): string {
  return of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`;
}
