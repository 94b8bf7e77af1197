/**
 * The whole run's latency distribution per server as HdrHistogram plots it: the tail, where
 * servers differ under load, gets as much room as the median.
 */
import { nineLabel } from '../spectrum';
import { latencyScale } from './scales';
import { LoadChartDef, loadSpec, serverColour, Spec } from './load-chart';

export const loadSpectrum: LoadChartDef = {
  suffix: 'percentiles',
  title: 'Latency by percentile (whole run)',
  spec: (run, title, opts) => {
    const values: Spec[] = [];
    for (const s of run.servers) {
      for (const p of s.spectrum) {
        values.push({ server: s.label, x: p.x, ms: p.ms, label: `${s.label}: ${p.percentile.toFixed(4).replace(/\.?0+$/, '')}% ≤ ${p.ms.toFixed(3)} ms` });
      }
    }
    const maxX = Math.max(10, ...values.map((v) => v.x as number));
    const decades = Math.ceil(Math.log10(maxX) - 1e-9);
    const ticks = Array.from({ length: decades + 1 }, (_, j) => 10 ** j);
    const labelExpr = ticks.map((t, j) => `datum.value === ${t} ? ${JSON.stringify(nineLabel(j))} : `).join('') + "''";
    const ys = latencyScale(values.map((v) => v.ms as number), opts.logY);
    const counts = run.servers.map((s) => `${s.label}: ${s.latency.totalCount} ok replies`);
    return loadSpec(title, ['ok replies of every method, from the intended send; each curve ends at its maximum', ...counts], values, {
      layer: [
        {
          mark: { type: 'line', strokeWidth: 1.8 },
          encoding: {
            x: { field: 'x', type: 'quantitative', title: 'percentile', scale: { type: 'log', domain: [1, 10 ** decades], nice: false }, axis: { values: ticks, labelExpr } },
            y: { field: 'ms', type: 'quantitative', title: `latency (ms${opts.logY ? ', log' : ''})`, scale: ys.scale },
            color: serverColour(run),
          },
        },
        {
          mark: { type: 'point', size: 12, filled: true, opacity: 0 },
          encoding: { x: { field: 'x', type: 'quantitative', scale: { type: 'log', domain: [1, 10 ** decades], nice: false } }, y: { field: 'ms', type: 'quantitative', scale: ys.scale }, description: { field: 'label' } },
        },
      ],
    });
  },
};
