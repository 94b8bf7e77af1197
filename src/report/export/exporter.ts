/**
 * Every output format behind one interface (as in hyperfine's export/): the report is rendered
 * once, and each exporter turns that into its own file(s) in the output directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../user-error';
import type { ChartDef } from '../charts/definitions';
import type { ReportModel } from '../model';
import type { TableRow } from '../tables';

export interface RenderedChart {
  def: ChartDef;
  spec: Record<string, unknown>;
  svg: string;
  png: Buffer;
}

export interface ExportContext {
  model: ReportModel;
  charts: RenderedChart[];
  rows: TableRow[];
  baseline?: string;
  outDir: string;
}

export interface Exporter {
  readonly name: string;
  /** Writes its files; returns their names relative to outDir. */
  write(ctx: ExportContext): string[];
}

export function writeOutput(outDir: string, name: string, data: string | Buffer): string {
  const file = path.join(outDir, name);
  try {
    fs.writeFileSync(file, data);
  } catch (err) {
    throw new UserError(`--out: cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return name;
}

/** Creates the output directory before any rendering, so a bad path fails first. */
export function prepareOutDir(outDir: string): void {
  try {
    fs.mkdirSync(outDir, { recursive: true });
    fs.accessSync(outDir, fs.constants.W_OK);
  } catch (err) {
    throw new UserError(`--out: cannot create or write ${outDir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
