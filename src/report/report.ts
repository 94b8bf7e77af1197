/**
 * The report pipeline, one way through: options → models (read once: the bench runs', the load
 * runs' and the wallet runs') → output files claimed → charts rendered once → every exporter
 * serializes the same rendered report → files written.
 */
import { benchCharts } from './charts/definitions';
import { assignColours } from './colours';
import { chartSpec } from './charts/scaling-spec';
import { loadChartFiles } from './charts/load-definitions';
import { loadModel } from './load';
import { readLoadRun } from './load-read';
import type { LoadRunReport } from './load-model';
import type { ReportModel } from './model';
import type { Table } from './table';
import { checkServerNames, ReportOptions } from './options';
import { renderSvg } from './render';
import { selectRuns } from './selection';
import { coldTable, coldVerdictsTable, limitsTable, runsTable, serversTable, summaryTable, transportsTable } from './tables';
import { loadRunTable } from './load-tables';
import { abNote, compareTable, pairedLoadNote, pairedLoadTable } from './compare';
import { ResultsStore } from '../store/results';
import { ResultsReader } from '../store/read';
import type { ChartFile, Exporter, RenderedBench, RenderedChart, RenderedLoadRun, RenderedReport, RenderedSection, RenderedWallet, OutputFile } from './export/exporter';
import type { WalletReport } from './wallet-model';
import { readWalletReport } from './wallet-read';
import { walletChartIds, walletSections } from './wallet';
import { indexTable, readLatestIndexRun, readResourceRuns, type IndexRunReport, type ResourceRunReport } from './resources';
import { indexPhasesSpec, resourceSpec, sweepSpec } from './charts/resource-charts';
import { claimOutputs, writeOutputs } from './export/output';
import { limitsTables, readLatestLimitsRun, type LimitsReport } from './limits';
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
  wallet: WalletReport | null; // null when no wallet run is selected
  resources: ResourceRunReport[];
  index: IndexRunReport | null;
  limits: LimitsReport | null;
}

export function readModels(opts: ReportOptions): ReportModels {
  const store = ResultsStore.open(opts.db, { readonly: true });
  try {
    const reader = new ResultsReader(store);
    const selection = selectRuns(reader, opts.db, opts.runIds, opts.loadRunIds, opts.walletRunIds);
    const load = selection.load.map((l) => readLoadRun(reader, l.run, l.chosen));
    const wallet = selection.wallet.length > 0 ? readWalletReport(reader, selection.wallet, opts.walletRunIds.length > 0 ? 'named' : 'latest') : null;
    const index = readLatestIndexRun(reader);
    const limits = readLatestLimitsRun(store);
    const model = selection.bench ? loadModel(opts.db, { runIds: opts.runIds }, store) : null;
    const resources = model ? readResourceRuns(reader, model.runs.map((r) => r.id)) : [];
    assignColours(model, load, wallet);
    return { dbPath: opts.db, bench: model, load, wallet, resources, index, limits };
  } finally {
    store.close();
  }
}

/** The resource part's charts, named by run so several runs share an output directory. */
function resourceChartFiles(models: ReportModels): Array<ChartFile & { spec: () => Record<string, unknown> }> {
  const files = models.resources.map((r) => {
    const title = `Server resources over time — run ${r.runId}`;
    return { id: `resources-${r.runId}`, title, spec: () => resourceSpec(r, title) };
  });
  const ix = models.index;
  if (ix) {
    const title = `Index build phases — index-bench run ${ix.runId}`;
    files.push({ id: `index-${ix.runId}-phases`, title, spec: () => indexPhasesSpec(ix, title) });
    if (ix.sweep) {
      const sweepTitle = `Index build per ${ix.sweep.name} — index-bench run ${ix.runId}`;
      files.push({ id: `index-${ix.runId}-sweep`, title: sweepTitle, spec: () => sweepSpec(ix, sweepTitle) });
    }
  }
  return files;
}

/** Every chart file of the report, known from the models alone: output paths are claimed before rendering. */
export function chartFiles(models: ReportModels): ChartFile[] {
  return [
    ...(models.bench ? benchCharts(models.bench) : []),
    ...models.load.flatMap(loadChartFiles),
    ...(models.wallet ? walletChartIds(models.wallet) : []),
    ...resourceChartFiles(models).map(({ id, title }) => ({ id, title })),
  ];
}

async function renderBench(model: ReportModel, opts: ReportOptions): Promise<RenderedBench> {
  const charts: RenderedChart[] = [];
  for (const def of benchCharts(model)) {
    const spec = chartSpec(model, def, opts);
    charts.push({ def, spec, svg: await renderSvg(spec) });
  }
  return {
    model,
    charts,
    tables: {
      runs: runsTable(model),
      servers: serversTable(model),
      summary: summaryTable(model, opts.baseline ?? model.baseline),
      limits: limitsTable(model),
      transports: transportsTable(model),
      ab: abTable(model),
      cold: coldTable(model),
      coldVerdicts: coldVerdictsTable(model),
    },
    excludedServers: opts.excludeServers,
  };
}

/** A run recorded as an A/B comparison (`bench --baseline`): each server's verdict against the baseline. */
function abTable(model: ReportModel): Table | null {
  const c = model.ab;
  if (!c) return null;
  return { ...compareTable(c, `A/B verdicts against ${model.baseline}`), note: abNote(c) };
}

async function renderLoadRun(run: LoadRunReport, opts: ReportOptions): Promise<RenderedLoadRun> {
  const charts: RenderedChart[] = [];
  for (const file of loadChartFiles(run)) {
    const spec = file.chart.spec(run, file.title, { logY: opts.logY });
    charts.push({ def: { id: file.id, title: file.title }, spec, svg: await renderSvg(spec) });
  }
  return { report: run, table: loadRunTable(run), ab: loadAbTable(run), charts };
}

/** An interleaved load run recorded as an A/B run (`load --baseline`): each other server's verdicts against the baseline, turn by turn. */
export function loadAbTable(run: LoadRunReport): Table | null {
  const c = run.ab;
  if (!c) return null;
  return { ...pairedLoadTable(c, `A/B verdicts against ${run.baseline}, load run ${run.run.number}, turn by turn`), note: pairedLoadNote(c) };
}

async function renderResources(models: ReportModels): Promise<RenderedSection | null> {
  const files = resourceChartFiles(models);
  if (files.length === 0) return null;
  const charts: RenderedChart[] = [];
  for (const f of files) {
    const spec = f.spec();
    charts.push({ def: { id: f.id, title: f.title }, spec, svg: await renderSvg(spec) });
  }
  return { tables: [...models.resources.map((r) => r.table), ...(models.index ? [indexTable(models.index)] : [])], charts };
}

async function renderWallet(report: WalletReport): Promise<RenderedWallet> {
  const sections: RenderedSection[] = [];
  for (const plan of walletSections(report)) {
    const charts: RenderedChart[] = [];
    for (const f of plan.charts) {
      const spec = f.spec();
      charts.push({ def: { id: f.id, title: f.title }, spec, svg: await renderSvg(spec) });
    }
    sections.push({ tables: plan.tables, charts });
  }
  return { model: report, sections };
}

export async function renderReport(models: ReportModels, opts: ReportOptions): Promise<RenderedReport> {
  const load: RenderedLoadRun[] = [];
  for (const run of models.load) load.push(await renderLoadRun(run, opts));
  return {
    dbPath: models.dbPath,
    bench: models.bench ? await renderBench(models.bench, opts) : null,
    load,
    wallet: models.wallet ? await renderWallet(models.wallet) : null,
    resources: await renderResources(models),
    limits: models.limits ? { tables: limitsTables(models.limits), charts: [] } : null,
  };
}

/** Writes the whole report; returns the file names written, relative to opts.outDir. */
export async function writeReport(opts: ReportOptions): Promise<string[]> {
  const models = readModels(opts);
  checkServerNames(opts, models.bench);
  const walletBench = models.wallet?.runs.some((r) => r.run.kind === 'bench') ?? false;
  claimOutputs(opts.outDir, EXPORTERS.flatMap((e) => e.fileNames({ bench: models.bench !== null, walletBench, charts: chartFiles(models) })));
  const report = await renderReport(models, opts);
  const files: OutputFile[] = [];
  for (const e of EXPORTERS) files.push(...(await e.serialize(report)));
  return writeOutputs(opts.outDir, files);
}
