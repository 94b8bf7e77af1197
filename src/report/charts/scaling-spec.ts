/**
 * One chart's Vega-Lite spec: per-address medians as points coloured by server, each server's
 * per-bucket median line over a best/worst band, and beneath the plot an error lane with one row
 * per server where every failed call is a red cross at its address's size, so an address that
 * failed is visible, never silently missing. With `facet`, one such panel per server.
 */
import type { ReportModel } from '../model';
import { AXIS_TITLE } from './definitions';
import type { ChartDef } from './scaling-chart';
import { chartData } from './data';
import { colourScale, ERROR_COLOUR } from './palette';
import { latencyScale, sizeScale } from './scales';
import { chartConfig, VEGA_LITE_SCHEMA } from './style';

export interface ChartOptions {
  logX: boolean;
  logY: boolean;
  facet: boolean;
  excludeServers: readonly string[];
}

type Spec = Record<string, unknown>;

const WIDE = { width: 640, height: 340 };
const PANEL = { width: 340, height: 220 };
const LANE_ROW = 18;

/** A Vega expression that selects one layer (and optionally one server) of the chart's data. */
function only(layer: string, server?: string): Spec[] {
  const test = `datum.layer === ${JSON.stringify(layer)}` + (server === undefined ? '' : ` && datum.server === ${JSON.stringify(server)}`);
  return [{ filter: test }];
}

function errorSummary(tally: Map<string, Record<string, number>>, servers: readonly string[]): string {
  const counts = (s: string) => Object.entries(tally.get(s)!).map(([k, n]) => `${n} ${k}`).join(', ');
  const failing = servers.filter((s) => tally.has(s));
  if (failing.length === 0) return 'errors and timeouts: none';
  // A facet panel's lane has one server, named in the panel title: keep its lane title short,
  // since the estimated width of this text sets the column's width.
  if (servers.length === 1) return `errors and timeouts (red crosses): ${counts(servers[0])}`;
  return `errors and timeouts (red crosses) — ${failing.map((s) => `${s}: ${counts(s)}`).join('; ')}`;
}

export function chartSpec(model: ReportModel, def: ChartDef, opts: ChartOptions): Spec {
  const all = model.servers.map((s) => s.label);
  const shown = all.filter((s) => !opts.excludeServers.includes(s));
  const data = chartData(model, def, shown);
  const xs = sizeScale(data.sizes, opts.logX);
  const ys = latencyScale(data.latencies, opts.logY);
  const yScale = ys.scale;
  const colour = colourScale(model.colourOrder ?? all, shown);

  const x = (axis: Spec) => ({ field: 'x', type: 'quantitative', title: AXIS_TITLE[def.x], scale: xs.scale, axis: xs.ticks ? { values: xs.ticks, ...axis } : axis });
  // Every layer carries the same legend definition: Vega-Lite merges them into one, and drops the
  // legend altogether if the layers disagree.
  const colourBy = () => ({ field: 'server', type: 'nominal', scale: colour, legend: { title: 'server', symbolType: 'circle', symbolOpacity: 1 } });
  // A rotated axis title longer than its plot pushes the layout apart: panels get a short one.
  const yTitle = `${opts.facet ? 'median latency' : 'median latency per address'} (ms${opts.logY ? ', log' : ''})`;

  const main = (size: { width: number; height: number }, server?: string): Spec => ({
    ...size,
    layer: [
      {
        transform: only('bucket', server),
        mark: { type: 'area', opacity: 0.14 },
        encoding: { x: x({}), y: { field: 'lo', type: 'quantitative', scale: yScale, title: yTitle }, y2: { field: 'hi' }, color: colourBy() },
      },
      {
        transform: only('bucket', server),
        mark: { type: 'line', strokeWidth: 2 },
        encoding: { x: x({}), y: { field: 'ms', type: 'quantitative', scale: yScale, title: yTitle }, color: colourBy() },
      },
      {
        transform: only('point', server),
        mark: { type: 'circle', size: 30, opacity: 0.7 },
        encoding: {
          x: x({}),
          y: { field: 'ms', type: 'quantitative', scale: yScale, title: yTitle },
          color: colourBy(),
          description: { field: 'label' },
        },
      },
    ],
  });

  const lane = (width: number, servers: readonly string[], server?: string): Spec => {
    const tally = new Map([...data.errorsByServer].filter(([s]) => servers.includes(s)));
    return {
      width,
      height: Math.max(LANE_ROW * servers.length, 22),
      title: { text: errorSummary(tally, servers), fontSize: 11, fontWeight: 'normal', anchor: 'start', color: tally.size ? ERROR_COLOUR : '#555' },
      transform: only('error', server),
      mark: { type: 'point', shape: 'cross', filled: true, size: 70, color: ERROR_COLOUR, opacity: 0.9 },
      encoding: {
        // The lane shares the plot's x (same explicit domain) but shows no labels of its own.
        x: x({ labels: false, ticks: false, domain: false, title: null }),
        y: { field: 'server', type: 'nominal', scale: { domain: [...servers] }, title: null, axis: { ticks: false, domain: false } },
        description: { field: 'label' },
      },
    };
  };

  const excluded = all.filter((s) => !shown.includes(s));
  const subtitle = [
    'points: each address, median of its counted passes',
    'line: median per log2 size bucket · band: best to worst address of the bucket',
    ...(excluded.length ? [`without ${excluded.join(', ')} (excluded to zoom on the rest)`] : []),
    ...(data.values.length === 0 ? [`no ${def.method} calls for these servers in the selected runs`] : []),
  ];
  const base: Spec = {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: def.title, subtitle, anchor: 'start', subtitleFontSize: 11 },
    data: { values: data.values },
    config: chartConfig(),
  };
  if (opts.facet) {
    return {
      ...base,
      columns: 2,
      concat: shown.map((s) => ({ title: { text: s, anchor: 'middle', fontSize: 13 }, vconcat: [main(PANEL, s), lane(PANEL.width, [s], s)], spacing: 6 })),
    };
  }
  return { ...base, vconcat: [main(WIDE), lane(WIDE.width, shown)], spacing: 6 };
}
