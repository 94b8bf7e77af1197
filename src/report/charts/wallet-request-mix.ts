/**
 * The request mix of each workload: per run (a row) and server (a bar), what one sync of each wallet
 * costs, stacked by sync step, in three columns: requests sent (a JSON batch is one), KiB received,
 * and time with a request of the step in flight. The first column is the workload's own shape; the
 * bytes and times are where servers differ.
 */
import type { WalletReport } from '../wallet-model';
import { runName, stepsOf } from '../wallet-tables';
import { Spec, walletSpec } from './wallet-chart';

/** Steps in sync order, light for the connection's preamble, strong for the per-script work. No red: it marks errors. */
const STEP_COLOURS: Record<string, string> = {
  handshake: '#c7c7c7',
  'server-info': '#9ecae9',
  headers: '#bab0ac',
  fees: '#eeca3b',
  subscribe: '#4c78a8',
  history: '#f58518',
  transactions: '#54a24b',
  proofs: '#b279a2',
  'block-headers': '#72b7b2',
};
const SPARE = ['#9d755d', '#ff9da6', '#439894'];

const MEASURES = [
  { field: 'requests', title: 'requests', scale: 'shared' },
  { field: 'kib', title: 'KiB received', scale: 'shared' },
  // Times do not compare across runs (a load run syncs under load): each run is drawn on its own scale.
  { field: 'busyMs', title: 'ms in flight (own scale)', scale: 'per run' },
] as const;

type Measure = (typeof MEASURES)[number];

export function requestMixSpec(report: WalletReport, title: string): Spec {
  const steps = stepsOf(report);
  const values: Spec[] = [];
  const nothing: string[] = [];
  for (const r of report.runs) {
    for (const s of r.servers) {
      const mix = r.mix.filter((m) => m.server === s.name);
      if (mix.length === 0) nothing.push(`${s.name} in ${runName(r.run)}`);
      for (const m of mix) {
        values.push({
          run: r.run.number,
          server: s.name,
          step: m.step,
          order: steps.indexOf(m.step),
          requests: m.requests,
          kib: m.bytes / 1024,
          busyMs: m.busyMs,
          label: `${runName(r.run)}, ${s.name}, ${m.step}: ${m.requests.toFixed(1)} requests (${m.calls.toFixed(1)} calls), ${(m.bytes / 1024).toFixed(1)} KiB, ${m.busyMs.toFixed(1)} ms`,
        });
      }
    }
  }
  // A bar's length is its server's total over the steps: the domains are set from those totals, so
  // every row of a shared measure has the same axis.
  const total = (field: Measure['field'], runId?: number) => {
    const sums = new Map<string, number>();
    for (const v of values) if (runId === undefined || v.run === runId) sums.set(`${v.run} ${v.server}`, (sums.get(`${v.run} ${v.server}`) ?? 0) + (v[field] as number));
    return Math.max(1, ...sums.values());
  };
  const servers = report.servers;
  const colour = {
    field: 'step',
    type: 'nominal',
    scale: { domain: steps, range: steps.map((s, i) => STEP_COLOURS[s] ?? SPARE[i % SPARE.length]) },
    legend: { title: 'sync step', symbolType: 'square' },
  };
  const cell = (runId: number, measure: Measure, first: boolean, last: boolean): Spec => ({
    width: 220,
    height: { step: 14 },
    transform: [{ filter: `datum.run === ${runId}` }],
    mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
    encoding: {
      y: { field: 'server', type: 'nominal', sort: servers, scale: { domain: servers }, title: null, axis: first ? {} : { labels: false, ticks: false } },
      x: {
        field: measure.field,
        type: 'quantitative',
        stack: 'zero',
        title: last || measure.scale === 'per run' ? measure.title : null,
        scale: { domain: [0, total(measure.field, measure.scale === 'per run' ? runId : undefined)], nice: true },
      },
      color: colour,
      order: { field: 'order', type: 'quantitative' },
      description: { field: 'label' },
    },
  });
  // Short lines: without a canvas Vega overestimates text widths, and a long subtitle widens the whole chart.
  const subtitle = [
    'one sync of each wallet: per wallet the mean of its ok counted syncs, summed',
    'bars stacked by sync step, in the order a sync goes through them',
    'ms in flight: time with a request of the step in flight; each run on its own scale',
    ...(nothing.length ? [`no ok counted sync, so no bar: ${nothing.join('; ')}`] : []),
  ];
  return walletSpec(title, subtitle, values, {
    vconcat: report.runs.map((r, i) => ({
      title: { text: `${runName(r.run)}`, anchor: 'start', fontSize: 12 },
      hconcat: MEASURES.map((m, j) => cell(r.run.number, m, j === 0, i === report.runs.length - 1)),
      spacing: 16,
    })),
    spacing: 10,
  });
}
