/**
 * Every output format behind one interface (the shape of hyperfine's export/): the report is
 * rendered once, each exporter serializes it into named files, and output.ts alone writes them.
 * An exporter names its files up front, from the plan only (which parts, which charts), so the
 * output paths can be claimed before anything is rendered.
 */
import type { LoadRunReport } from '../load-model';
import type { ReportModel } from '../model';
import type { Table } from '../table';
import type { WalletReport } from '../wallet-model';

/** What names a chart's files and captions it: the bench ChartDefs and the load charts both fit. */
export interface ChartFile {
  id: string; // file name stem
  title: string;
}

export interface RenderedChart {
  def: ChartFile;
  spec: Record<string, unknown>;
  svg: string;
}

/** The bench part: per-address medians of the selected bench runs. */
export interface RenderedBench {
  model: ReportModel;
  charts: RenderedChart[];
  tables: { runs: Table; servers: Table; summary: Table; limits: Table; transports: Table | null; ab: Table | null; cold: Table | null; coldVerdicts: Table | null };
  excludedServers: readonly string[];
}

export interface RenderedLoadRun {
  report: LoadRunReport;
  table: Table;
  /** An interleaved run with a baseline (`load --baseline`): each other server's verdicts against it, turn by turn. */
  ab: Table | null;
  charts: RenderedChart[];
}

/** Tables and charts of the resource part: what servers spent during bench runs, and index builds. */
export interface RenderedSection {
  tables: Table[];
  charts: RenderedChart[];
}

/** The wallet part: its model (for the CSV) and its tables and charts in the order they are shown. */
export interface RenderedWallet {
  model: WalletReport;
  sections: RenderedSection[];
}

export interface RenderedReport {
  dbPath: string;
  bench: RenderedBench | null; // null when only load runs were selected
  load: RenderedLoadRun[];
  wallet: RenderedWallet | null; // null when no wallet run was selected
  resources: RenderedSection | null; // null when nothing was sampled
  limits: RenderedSection | null; // null when the database holds no limits run
}

export interface ReportPlan {
  bench: boolean;
  walletBench: boolean; // a wallet bench run is reported: its per-wallet medians go to a CSV
  charts: readonly ChartFile[]; // every chart of the report: bench, load, wallet and resources
}

export interface OutputFile {
  name: string; // relative to the output directory
  data: string | Buffer;
}

export interface Exporter {
  readonly name: string;
  fileNames(plan: ReportPlan): string[];
  /** The files; one that takes a while per chart (PNG) yields the event loop between them, so a stop is heard. */
  serialize(report: RenderedReport): OutputFile[] | Promise<OutputFile[]>;
}

export function allCharts(r: RenderedReport): RenderedChart[] {
  return [...(r.bench?.charts ?? []), ...r.load.flatMap((l) => l.charts), ...(r.wallet?.sections.flatMap((s) => s.charts) ?? []), ...(r.resources?.charts ?? [])];
}

/** The report's heading, named after its first part: bench latency, load, wallets, resources, else limits. */
export function reportTitle(r: RenderedReport): string {
  if (r.bench) return 'Electrum server latency report';
  if (r.load.length) return 'Electrum server load report';
  if (r.wallet) return 'Electrum server wallet report';
  return r.resources || !r.limits ? 'Electrum server resources report' : 'Electrum server limits report';
}
