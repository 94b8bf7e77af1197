/**
 * Builds one chart's Vega-Lite spec: per-address medians as points coloured by server, a per-bucket
 * median line and best/worst band per server, and errors as red crosses above the data (an address
 * whose calls failed is shown, never silently missing). One inline dataset with a `layer` field,
 * so the same spec can be faceted per server.
 */
import type { ReportModel } from '../model';
import { AXIS_TITLE, ChartDef } from './definitions';
import { bucketRows } from './buckets';

export interface ChartOptions {
  logX: boolean;
  logY: boolean;
  facet: boolean;
}

export const FONT = 'DejaVu Sans';
const ERROR_COLOUR = '#d62728';

export function chartSpec(model: ReportModel, def: ChartDef, opts: ChartOptions): Record<string, unknown> {
  const points = model.points.filter((p) => p.method === def.method);
  const values: Array<Record<string, unknown>> = [];
  let top = 0;
  for (const p of points) {
    if (p.medianMs === null) continue;
    top = Math.max(top, p.medianMs);
    values.push({ layer: 'point', server: p.server, x: p[def.x], ms: p.medianMs, address: p.address ?? p.scripthash, type: p.type, txCount: p.txCount, utxoCount: p.utxoCount });
  }
  for (const b of bucketRows(points, def.x)) {
    values.push({ layer: 'bucket', server: b.server, x: b.x, ms: b.median, lo: b.lo, hi: b.hi, n: b.n });
  }
  const errorY = top > 0 ? top * 1.15 : 1;
  for (const e of model.errors.filter((e) => e.method === def.method)) {
    values.push({ layer: 'error', server: e.server, x: e[def.x], ms: errorY, category: e.category, count: e.count, address: e.address });
  }

  const x = {
    field: 'x',
    type: 'quantitative',
    title: AXIS_TITLE[def.x],
    scale: opts.logX ? { type: 'symlog' } : { zero: true },
  };
  const y = { field: 'ms', type: 'quantitative', title: 'median latency (ms)', scale: opts.logY ? { type: 'log' } : { zero: true } };
  const color = {
    field: 'server',
    type: 'nominal',
    title: 'server',
    scale: { domain: model.servers.map((s) => s.label) },
  };
  const only = (layer: string) => [{ filter: `datum.layer === '${layer}'` }];
  const layers = [
    {
      transform: only('bucket'),
      mark: { type: 'area', opacity: 0.15 },
      encoding: { x, y: { field: 'lo', type: 'quantitative', scale: y.scale, title: y.title }, y2: { field: 'hi' }, color },
    },
    { transform: only('bucket'), mark: { type: 'line', strokeWidth: 2 }, encoding: { x, y, color } },
    {
      transform: only('point'),
      mark: { type: 'point', filled: true, size: 36, opacity: 0.75 },
      encoding: {
        x,
        y,
        color,
        tooltip: [{ field: 'server' }, { field: 'address' }, { field: 'type' }, { field: 'txCount' }, { field: 'utxoCount' }, { field: 'ms', format: '.3f' }],
      },
    },
    {
      transform: only('error'),
      mark: { type: 'point', shape: 'cross', size: 90, filled: true, color: ERROR_COLOUR },
      encoding: { x, y, tooltip: [{ field: 'server' }, { field: 'category' }, { field: 'count' }, { field: 'address' }] },
    },
  ];
  const hasErrors = values.some((v) => v.layer === 'error');
  const base = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: def.title, subtitle: hasErrors ? 'red crosses: addresses with failed calls (above the data)' : 'points: per-address medians; line and band: per-bucket median and best/worst' },
    data: { values },
    // Layers share one colour legend; full-opacity circles, not the band's pale fill.
    config: { font: FONT, view: { stroke: '#ddd' }, legend: { symbolType: 'circle', symbolOpacity: 1, symbolFillColor: null } },
  };
  if (opts.facet) {
    return { ...base, facet: { field: 'server', type: 'nominal', title: null }, columns: 2, spec: { width: 320, height: 220, layer: layers } };
  }
  return { ...base, width: 640, height: 360, layer: layers };
}
