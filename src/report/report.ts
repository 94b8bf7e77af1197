/**
 * The report pipeline, one way through: options → models (read once: the bench runs' and the load
 * runs') → output files claimed → charts rendered once → every exporter serializes the same
 * rendered report → files written.
 */
import { CHARTS } from './charts/definitions';
import { chartSpec } from './charts/scaling-spec';
import { loadChartFiles } from './charts/load-definitions';
import { loadModel } from './load';
import { readLoadRun } from './load-read';
import type { LoadRunReport } from './load-model';
import type { ReportModel } from './model';
import { checkServerNames, ReportOptions } from './options';
import { renderSvg } from './render';
import { selectRuns } from './selection';
import { limitsTable, runsTable, serversTable, summaryTable, transportsTable } from './tables';
import { loadRunTable } from './load-tables';
import { ResultsStore } from '../store/results';
import type { ChartFile, Exporter, RenderedBench, RenderedChart, RenderedLoadRun, RenderedReport } from './export/exporter';
import { claimOutputs, writeOutputs } from './export/output';
import { svgExporter } from './export/svg';
import { pngExporter } from './export/png';
import { specExporter } from './export/spec';
import { csvExporter } from './export/csv';
import { markdownExporter } from './export/markdown';
import { htmlExporter } from './export/html';

export const EXPORTERS: readonly Exporter[] = [svgExporter, pngExporter, specExporter, csvExporter, markdownExporter, htmlExporter];

export interface ReportModels {
  dbPath: string;
  bench: ReportModel | null;
  load: LoadRunReport[];
}

export function readModels(opts: ReportOptions): ReportModels {
  const store = ResultsStore.open(opts.db, { readonly: true });
  let bench: boolean;
  let load: LoadRunReport[];
  try {
    const selection = selectRuns(store, opts.db, opts.runIds, opts.loadRunIds);
    bench = selection.bench;
    load = selection.load.map((l) => readLoadRun(store, l.run, l.chosen));
  } finally {
    store.close();
  }
  return { dbPath: opts.db, bench: bench ? loadModel(opts.db, { runIds: opts.runIds }) : null, load };
}

/** Every chart file of the report, known from the models alone: output paths are claimed before rendering. */
export function chartFiles(models: ReportModels): ChartFile[] {
  return [...(models.bench ? CHARTS : []), ...models.load.flatMap(loadChartFiles)];
}

async function renderBench(model: ReportModel, opts: ReportOptions): Promise<RenderedBench> {
  const charts: RenderedChart[] = [];
  for (const def of CHARTS) {
    const spec = chartSpec(model, def, opts);
    charts.push({ def, spec, svg: await renderSvg(spec) });
  }
  return {
    model,
    charts,
    tables: {
      runs: runsTable(model),
      servers: serversTable(model),
      summary: summaryTable(model, opts.baseline),
      limits: limitsTable(model),
      transports: transportsTable(model),
    },
    excludedServers: opts.excludeServers,
  };
}

async function renderLoadRun(run: LoadRunReport, opts: ReportOptions): Promise<RenderedLoadRun> {
  const charts: RenderedChart[] = [];
  for (const file of loadChartFiles(run)) {
    const spec = file.chart.spec(run, file.title, { logY: opts.logY });
    charts.push({ def: { id: file.id, title: file.title }, spec, svg: await renderSvg(spec) });
  }
  return { report: run, table: loadRunTable(run), charts };
}

export async function renderReport(models: ReportModels, opts: ReportOptions): Promise<RenderedReport> {
  const load: RenderedLoadRun[] = [];
  for (const run of models.load) load.push(await renderLoadRun(run, opts));
  return { dbPath: models.dbPath, bench: models.bench ? await renderBench(models.bench, opts) : null, load };
}

/** Writes the whole report; returns the file names written, relative to opts.outDir. */
export async function writeReport(opts: ReportOptions): Promise<string[]> {
  const models = readModels(opts);
  checkServerNames(opts, models.bench);
  claimOutputs(opts.outDir, EXPORTERS.flatMap((e) => e.fileNames({ bench: models.bench !== null, charts: chartFiles(models) })));
  const report = await renderReport(models, opts);
  return writeOutputs(opts.outDir, EXPORTERS.flatMap((e) => e.serialize(report)));
}
