/**
 * The one inline dataset of a chart: per-address medians ("point"), per-bucket median and
 * best/worst ("bucket") and failed calls ("error"), told apart by a `layer` field so every view of
 * the chart filters the same values. Each row carries a readable `label`: it becomes the mark's
 * accessible description and, in the HTML, its hover tooltip.
 */
import type { ErrorPoint, MedianPoint, ReportModel } from '../model';
import { bucketRows } from './buckets';
import type { ChartDef } from './scaling-chart';

export interface ChartData {
  values: Array<Record<string, unknown>>;
  sizes: number[];
  latencies: number[];
  errorsByServer: Map<string, Record<string, number>>;
}

const who = (p: { address: string | null; scripthash: string }) => p.address ?? `scripthash ${p.scripthash.slice(0, 12)}…`;

export function chartData(model: ReportModel, def: ChartDef, shown: readonly string[]): ChartData {
  const keep = new Set(shown);
  const points: MedianPoint[] = model.points.filter((p) => p.method === def.method && keep.has(p.server));
  const errors: ErrorPoint[] = model.errors.filter((e) => e.method === def.method && keep.has(e.server));
  const values: Array<Record<string, unknown>> = [];
  const sizes: number[] = [];
  const latencies: number[] = [];
  for (const p of points) {
    const x = p[def.x];
    // Every pass failed: drawn from its errors in the lane. A size known only from answers (the
    // transaction's bytes) is known whenever a pass succeeded.
    if (p.medianMs === null || x === null) continue;
    sizes.push(x);
    latencies.push(p.medianMs);
    values.push({
      layer: 'point',
      server: p.server,
      x,
      ms: p.medianMs,
      label: `${p.server}: ${who(p)} (${p.type}), ${p.txCount} tx, ${p.utxoCount} UTXOs, median ${p.medianMs.toFixed(3)} ms`,
    });
  }
  for (const b of bucketRows(points, def.x)) {
    latencies.push(b.lo, b.hi);
    values.push({ layer: 'bucket', server: b.server, x: b.x, ms: b.median, lo: b.lo, hi: b.hi, n: b.n });
  }
  const errorsByServer = new Map<string, Record<string, number>>();
  for (const e of errors) {
    const x = e[def.x];
    const tally = errorsByServer.get(e.server) ?? {};
    tally[e.category] = (tally[e.category] ?? 0) + e.count;
    errorsByServer.set(e.server, tally);
    // An address whose transaction no server returned has no size to place it at: counted in the lane's title only.
    if (x === null) continue;
    sizes.push(x);
    values.push({
      layer: 'error',
      server: e.server,
      x,
      category: e.category,
      count: e.count,
      label: `${e.server}: ${e.count} × ${e.category} on ${who(e)}, ${e.txCount} tx, ${e.utxoCount} UTXOs`,
    });
  }
  return { values, sizes, latencies, errorsByServer };
}
