/**
 * Latency per interval from the intended send: p50/p90/p99/max of the ok replies. A server that
 * falls behind shows here as a climb, since queued requests are charged their waiting time.
 */
import { latencyScale } from './scales';
import { dashBy, LoadChartDef, loadSpec, overTime, serverColour, Spec, turnOf } from './load-chart';

const STATS = ['p50', 'p90', 'p99', 'max'] as const;
const FIELD = { p50: 'p50Ms', p90: 'p90Ms', p99: 'p99Ms', max: 'maxMs' } as const;

export const loadLatency: LoadChartDef = {
  suffix: 'latency',
  title: 'Latency over time: p50, p90, p99 and max per second',
  spec: (run, title, opts) => {
    const values: Spec[] = [];
    const all: number[] = [];
    for (const s of run.servers) {
      for (const p of s.intervals) {
        for (const stat of STATS) {
          const ms = p[FIELD[stat]];
          if (ms === null) continue;
          all.push(ms);
          values.push({ server: s.label, t: p.t, ...turnOf(p), stat, ms });
        }
      }
    }
    const ys = latencyScale(all, opts.logY);
    const subtitle = [
      'ok replies of every method, from each request\'s intended send (no coordinated omission)',
      ...(values.length === 0 ? ['no ok replies in this run'] : []),
    ];
    const time = overTime(run, { type: 'line', strokeWidth: 1.3 });
    return loadSpec(title, subtitle, values, {
      mark: time.mark,
      encoding: {
        x: time.x,
        ...(time.detail ? { detail: time.detail } : {}),
        y: { field: 'ms', type: 'quantitative', title: `latency (ms${opts.logY ? ', log' : ''})`, scale: ys.scale },
        color: serverColour(run),
        strokeDash: dashBy('stat', STATS, 'percentile'),
      },
    });
  },
};
