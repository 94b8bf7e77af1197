/**
 * The numbers beside the charts: per server × method summaries, the ratio of each p50 to a
 * baseline server's, and a least-squares slope of median latency against address size.
 */
import type { ReportModel, ReportMethod } from './model';
import { SLOPE_AXIS } from './charts/definitions';

export interface TableRow {
  server: string;
  method: ReportMethod;
  n: number;
  ok: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  errors: Record<string, number>;
  ratioToBaseline: number | null;
  slopeMsPer100: number | null; // ms per 100 transactions (per 100 UTXOs for listunspent)
}

/** Ordinary least squares slope of y on x; null with fewer than two distinct x. */
export function slope(xs: number[], ys: number[]): number | null {
  const n = xs.length;
  if (n < 2) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  return sxx === 0 ? null : sxy / sxx;
}

export function tableRows(model: ReportModel, baseline?: string): TableRow[] {
  const base = new Map<ReportMethod, number | null>();
  if (baseline) for (const s of model.summaries.filter((s) => s.server === baseline)) base.set(s.method, s.p50Ms);
  return model.summaries.map((s) => {
    const axis = SLOPE_AXIS[s.method];
    const pts = model.points.filter((p) => p.server === s.server && p.method === s.method && p.medianMs !== null);
    const k = slope(pts.map((p) => p[axis]), pts.map((p) => p.medianMs as number));
    const b = base.get(s.method);
    return {
      server: s.server,
      method: s.method,
      n: s.n,
      ok: s.nOk,
      p50: s.p50Ms,
      p90: s.p90Ms,
      p99: s.p99Ms,
      max: s.maxMs,
      errors: s.errors,
      ratioToBaseline: b && s.p50Ms !== null ? s.p50Ms / b : null,
      slopeMsPer100: k === null ? null : k * 100,
    };
  });
}

export const fmtMs = (v: number | null) => (v === null ? '–' : v.toFixed(3));
export const fmtErrors = (e: Record<string, number>) =>
  Object.entries(e)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '0';
