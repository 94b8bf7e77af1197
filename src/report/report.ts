/**
 * The report pipeline, one way through: options → model (read once) → output files claimed →
 * charts rendered once → every exporter serializes the same rendered report → files written.
 */
import { CHARTS } from './charts/definitions';
import { chartSpec } from './charts/scaling-spec';
import { loadModel } from './load';
import { checkServerNames, ReportOptions } from './options';
import { renderSvg } from './render';
import { runsTable, serversTable, summaryTable } from './tables';
import type { Exporter, RenderedChart, RenderedReport } from './export/exporter';
import { claimOutputs, writeOutputs } from './export/output';
import { svgExporter } from './export/svg';
import { pngExporter } from './export/png';
import { specExporter } from './export/spec';
import { csvExporter } from './export/csv';
import { markdownExporter } from './export/markdown';
import { htmlExporter } from './export/html';

export const EXPORTERS: readonly Exporter[] = [svgExporter, pngExporter, specExporter, csvExporter, markdownExporter, htmlExporter];

export async function renderReport(model: RenderedReport['model'], opts: ReportOptions): Promise<RenderedReport> {
  const charts: RenderedChart[] = [];
  for (const def of CHARTS) {
    const spec = chartSpec(model, def, opts);
    charts.push({ def, spec, svg: await renderSvg(spec) });
  }
  return {
    model,
    charts,
    tables: { runs: runsTable(model), servers: serversTable(model), summary: summaryTable(model, opts.baseline) },
    excludedServers: opts.excludeServers,
  };
}

/** Writes the whole report; returns the file names written, relative to opts.outDir. */
export async function writeReport(opts: ReportOptions): Promise<string[]> {
  const model = loadModel(opts.db, { runIds: opts.runIds });
  checkServerNames(opts, model);
  claimOutputs(opts.outDir, EXPORTERS.flatMap((e) => e.fileNames(CHARTS)));
  const report = await renderReport(model, opts);
  return writeOutputs(opts.outDir, EXPORTERS.flatMap((e) => e.serialize(report)));
}
