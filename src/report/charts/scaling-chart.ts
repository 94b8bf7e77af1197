/**
 * What a scaling chart is: which method's latency, against which size of address. One file per
 * chart; definitions.ts lists them.
 */
import type { ReportMethod } from '../model';

export type SizeAxis = 'txCount' | 'utxoCount' | 'txBytes';

export interface ChartDef {
  id: string; // file name stem
  title: string;
  method: ReportMethod;
  x: SizeAxis;
}
