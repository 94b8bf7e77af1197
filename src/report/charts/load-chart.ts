/**
 * What a load chart is, and what they share: one file per chart (load-*.ts), each a spec built
 * from one load run's model, in the same fonts, colours per server and title layout as the
 * scaling charts. A chart that has nothing to show for a run (find-max without a search) says so
 * through `applies`, and then has no files at all.
 */
import type { LoadRunReport } from '../load-model';
import type { ChartFile } from '../export/exporter';
import { colourScale } from './palette';
import { chartConfig, VEGA_LITE_SCHEMA } from './style';

export type Spec = Record<string, unknown>;

export interface LoadChartOptions {
  logY: boolean;
}

export interface LoadChartDef {
  suffix: string; // file name stem after load-<run id>-
  title: string;
  applies?(run: LoadRunReport): boolean;
  spec(run: LoadRunReport, title: string, opts: LoadChartOptions): Spec;
}

export const WIDE = { width: 640, height: 300 };

/** Each server is measured on its own schedule clock (servers of a run are loaded one after another). */
export const TIME_TITLE = "seconds since the server's load began";

/**
 * The time axis and line marks of a chart over a run's seconds. Servers loaded in turns
 * (`load --interleave`) share the run's clock, and each turn is a line of its own with its seconds
 * as points: a line across the other servers' turns would draw seconds in which the server was
 * not loaded.
 */
/** A second's turn, for `overTime`'s lines: only an interleaved run's seconds have one. */
export function turnOf(p: { round: number | null }): { round?: number } {
  return p.round === null ? {} : { round: p.round };
}

export function overTime(run: LoadRunReport, mark: Spec): { mark: Spec; x: Spec; detail?: Spec } {
  if (run.turnMs === null) return { mark, x: { field: 't', type: 'quantitative', title: TIME_TITLE } };
  return {
    mark: { ...mark, point: { size: 10, filled: true } },
    x: { field: 't', type: 'quantitative', title: 'seconds since the run began (servers in turns)' },
    detail: { field: 'round', type: 'nominal' },
  };
}

export function loadSpec(title: string, subtitle: string[], values: Spec[], body: Spec): Spec {
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle, anchor: 'start', subtitleFontSize: 11 },
    data: { values },
    config: chartConfig(),
    ...WIDE,
    ...body,
  };
}

export function serverColour(run: LoadRunReport): Spec {
  const all = run.servers.map((s) => s.label);
  return { field: 'server', type: 'nominal', scale: colourScale(run.colourOrder ?? all, all), legend: { title: 'server', symbolType: 'stroke' } };
}

/**
 * Line styles that stay apart in print and for colour-blind readers, independent of the server
 * colour. The legend draws strokes: the report-wide legend symbol (a circle) cannot show a dash.
 */
export function dashBy(field: string, domain: readonly string[], title: string): Spec {
  const DASHES = [[1, 0], [6, 4], [2, 2], [10, 3, 2, 3]];
  return {
    field,
    type: 'nominal',
    sort: [...domain],
    scale: { domain: [...domain], range: domain.map((_, i) => DASHES[i % DASHES.length]) },
    // The stroke again as the symbols' encoding: lines with points on them (servers in turns) draw their legend without it.
    legend: { title, symbolType: 'stroke', symbolStrokeColor: '#555', symbolStrokeWidth: 1.5, symbolSize: 400, encode: { symbols: { update: { stroke: { value: '#555' } } } } },
  };
}

export interface LoadChartFile extends ChartFile {
  chart: LoadChartDef;
  run: LoadRunReport;
}
