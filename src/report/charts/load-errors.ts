/**
 * Errors and dropped requests per interval, as shares, so servers loaded at different rates
 * compare: errors of the replies received, dropped of the requests the schedule wanted to send.
 */
import { fmtErrors } from '../table';
import { dashBy, LoadChartDef, loadSpec, overTime, serverColour, Spec, turnOf } from './load-chart';

export const loadErrors: LoadChartDef = {
  suffix: 'errors',
  title: 'Errors and dropped requests over time',
  spec: (run, title) => {
    const values: Spec[] = [];
    for (const s of run.servers) {
      for (const p of s.intervals) {
        const replies = p.ok + p.errorCount;
        if (replies > 0) values.push({ server: s.label, t: p.t, ...turnOf(p), series: 'errors', pct: (100 * p.errorCount) / replies });
        const intended = p.sent + p.dropped;
        if (intended > 0) values.push({ server: s.label, t: p.t, ...turnOf(p), series: 'dropped', pct: (100 * p.dropped) / intended });
      }
    }
    // All-zero data would give Vega an empty [0, 0] domain: keep at least 0–1 % on screen.
    const top = Math.max(1, ...values.map((v) => v.pct as number));
    const totals = run.servers.map((s) => `${s.label}: errors ${fmtErrors(s.totals.errors)}, dropped ${s.totals.dropped}`);
    const time = overTime(run, { type: 'line', strokeWidth: 1.5 });
    return loadSpec(title, ['solid: errors, % of the replies · dashed: dropped (never sent), % of the scheduled requests', ...totals], values, {
      mark: time.mark,
      encoding: {
        x: time.x,
        ...(time.detail ? { detail: time.detail } : {}),
        y: { field: 'pct', type: 'quantitative', title: '% per second', scale: { domain: [0, top], nice: true } },
        color: serverColour(run),
        strokeDash: dashBy('series', ['errors', 'dropped'], 'series'),
      },
    });
  },
};
