/**
 * What the wallet charts share: one file per chart kind (wallet-*.ts), each a spec built from the
 * wallet model in the fonts, title layout and server colours of the rest of the report. A server
 * keeps one colour across every chart of the report: its place in the report's colour order.
 */
import type { WalletReport } from '../wallet-model';
import type { ChartFile } from '../export/exporter';
import { colourScale } from './palette';
import { chartConfig, VEGA_LITE_SCHEMA } from './style';

export type Spec = Record<string, unknown>;

export interface WalletChartFile extends ChartFile {
  spec: () => Spec;
}

export function walletSpec(title: string, subtitle: string[], values: Spec[], body: Spec): Spec {
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle, anchor: 'start', subtitleFontSize: 11 },
    data: { values },
    config: chartConfig(),
    ...body,
  };
}

/**
 * Every layer carries the same legend definition, so Vega-Lite merges them into one. `shown`: the
 * servers of this chart, so a legend lists a run's own servers, even one with nothing to draw.
 */
export function serverColour(report: WalletReport, shown: readonly string[]): Spec {
  return { field: 'server', type: 'nominal', scale: colourScale(report.colourOrder ?? report.servers, shown), legend: { title: 'server', symbolType: 'circle', symbolOpacity: 1 } };
}

/** A Vega filter that keeps one layer of a chart's data. */
export const only = (layer: string, extra?: string): Spec[] => [{ filter: `datum.layer === ${JSON.stringify(layer)}${extra ? ` && ${extra}` : ''}` }];
