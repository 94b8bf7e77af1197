/** Builds the model once, renders every chart once, then hands both to every exporter. */
import { CHARTS } from './charts/definitions';
import { chartSpec, ChartOptions } from './charts/spec';
import { loadModel } from './model';
import { renderPng, renderSvg } from './render';
import { tableRows } from './tables';
import { ExportContext, Exporter, prepareOutDir, RenderedChart } from './export/exporter';
import { svgExporter } from './export/svg';
import { pngExporter } from './export/png';
import { specExporter } from './export/spec';
import { csvExporter } from './export/csv';
import { markdownExporter } from './export/markdown';
import { htmlExporter } from './export/html';
import { UserError } from '../user-error';

export const EXPORTERS: Exporter[] = [svgExporter, pngExporter, specExporter, csvExporter, markdownExporter, htmlExporter];

export interface ReportOptions extends ChartOptions {
  db: string;
  runIds?: number[];
  outDir: string;
  excludeServers?: string[];
  baseline?: string;
}

export async function writeReport(opts: ReportOptions): Promise<string[]> {
  const model = loadModel(opts.db, { runIds: opts.runIds, excludeServers: opts.excludeServers });
  if (opts.baseline && !model.servers.some((s) => s.label === opts.baseline)) {
    throw new UserError(`--baseline: no server named ${opts.baseline} (${model.servers.map((s) => s.label).join(', ')})`);
  }
  prepareOutDir(opts.outDir);
  const charts: RenderedChart[] = [];
  for (const def of CHARTS) {
    const spec = chartSpec(model, def, opts);
    const svg = await renderSvg(spec);
    charts.push({ def, spec, svg, png: renderPng(svg) });
  }
  const ctx: ExportContext = { model, charts, rows: tableRows(model, opts.baseline), baseline: opts.baseline, outDir: opts.outDir };
  return EXPORTERS.flatMap((e) => e.write(ctx));
}
