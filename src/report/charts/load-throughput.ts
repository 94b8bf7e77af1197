/** Did the server keep up? Achieved replies per second against the schedule's target (open model). */
import { dashBy, LoadChartDef, loadSpec, overTime, serverColour, Spec, turnOf } from './load-chart';

export const loadThroughput: LoadChartDef = {
  suffix: 'throughput',
  title: 'Throughput over time: target vs achieved requests/s',
  spec: (run, title) => {
    const values: Spec[] = [];
    for (const s of run.servers) {
      for (const p of s.intervals) {
        if (p.targetRate !== null) values.push({ server: s.label, t: p.t, ...turnOf(p), series: 'target', rate: p.targetRate });
        values.push({ server: s.label, t: p.t, ...turnOf(p), series: 'achieved', rate: p.achievedRate });
      }
    }
    const open = values.some((v) => v.series === 'target');
    const subtitle = [
      open ? 'solid: replies per second (errors included) · dashed: the target arrival rate' : 'replies per second (errors included); closed model: no target rate',
      ...(values.length === 0 ? ['no intervals recorded for this run'] : []),
    ];
    const time = overTime(run, { type: 'line', strokeWidth: 1.5 });
    return loadSpec(title, subtitle, values, {
      mark: time.mark,
      encoding: {
        x: time.x,
        ...(time.detail ? { detail: time.detail } : {}),
        y: { field: 'rate', type: 'quantitative', title: 'requests per second' },
        color: serverColour(run),
        strokeDash: dashBy('series', ['achieved', 'target'], 'series'),
      },
    });
  },
};
