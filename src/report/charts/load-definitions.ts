/** The load charts, in the order the report shows them; a new load chart is a new file listed here. */
import type { LoadRunReport } from '../load-model';
import type { LoadChartDef, LoadChartFile } from './load-chart';
import { loadErrors } from './load-errors';
import { loadFindMax } from './load-find-max';
import { loadLatency } from './load-latency';
import { loadSpectrum } from './load-spectrum';
import { loadThroughput } from './load-throughput';

export const LOAD_CHARTS: readonly LoadChartDef[] = [loadThroughput, loadLatency, loadErrors, loadFindMax, loadSpectrum];

/** The charts one load run gets, named by run so several load runs share an output directory. */
export function loadChartFiles(run: LoadRunReport): LoadChartFile[] {
  return LOAD_CHARTS.filter((c) => c.applies?.(run) ?? true).map((chart) => ({
    id: `load-${run.run.number}-${chart.suffix}`,
    title: `${chart.title} — load run ${run.run.number}`,
    chart,
    run,
  }));
}
