/**
 * Every output format behind one interface (the shape of hyperfine's export/): the report is
 * rendered once, each exporter serializes it into named files, and output.ts alone writes them.
 * An exporter names its files up front, from the chart list only, so the output paths can be
 * claimed before anything is rendered.
 */
import type { ChartDef } from '../charts/definitions';
import type { ReportModel } from '../model';
import type { Table } from '../table';

export interface RenderedChart {
  def: ChartDef;
  spec: Record<string, unknown>;
  svg: string;
}

export interface RenderedReport {
  model: ReportModel;
  charts: RenderedChart[];
  tables: { runs: Table; servers: Table; summary: Table };
  excludedServers: readonly string[];
}

export interface OutputFile {
  name: string; // relative to the output directory
  data: string | Buffer;
}

export interface Exporter {
  readonly name: string;
  fileNames(charts: readonly ChartDef[]): string[];
  serialize(report: RenderedReport): OutputFile[];
}
