/** The table of a load run, one row per server, rendered the same way into Markdown and HTML. */
import { answeringText } from '../core/answering';
import type { Stage, StoredLoadModel } from '../core/load-types';
import type { LoadRunReport, LoadServerReport } from './load-model';
import { fmtErrors, fmtMs, Table } from './table';
import { fmtRate } from '../core/rate-text';
import { stoppedAnsweringText } from '../core/stopped-answering';
import { outageText } from '../core/outages';
import { reportReplyHolds } from './tables';

export const LOAD_NOTE =
  'Latency is measured from each request\'s intended send time, so a server that falls behind is charged for the queue it builds ' +
  '(no coordinated omission); percentiles are over the ok replies of every method. Achieved rate: answers per second, error ' +
  'replies included, timeouts and closed connections not (they are no answer); a server that stopped answering is said so first. Dropped requests were never sent because every connection\'s pipeline was full. Generator-bound: the load generator ' +
  'itself fell behind, so part of the latency is its own.';

/**
 * The load models a run stored before schema 10 could have: the seven executors of that version,
 * frozen here as they were. Later runs store their executor's own words, so a new executor never
 * needs a line here.
 */
type ModelBeforeSchema10 =
  | { kind: 'rate'; rate: number }
  | { kind: 'stages'; stages: Stage[]; startRate: number }
  | { kind: 'vus'; vus: number; thinkTimeMs: number }
  | { kind: 'vus-stages'; stages: Stage[]; startVus: number; thinkTimeMs: number }
  | { kind: 'per-vu-iterations'; vus: number; iterations: number; thinkTimeMs: number }
  | { kind: 'shared-iterations'; vus: number; iterations: number; thinkTimeMs: number }
  | { kind: 'hold'; sessions: number; concurrency: number };

/** How a run's load was paced: in its executor's own words, stored with the run (schema 10), or for a run stored before, as that version described it. */
export function describeModel(model: StoredLoadModel | null, stored: string | null = null): string {
  if (stored !== null) return stored;
  if (model === null) return '–';
  const m = model as ModelBeforeSchema10;
  switch (m.kind) {
    case 'rate':
      return `open, ${fmtRate(m.rate)}/s`;
    case 'stages':
      return `open ramp, ${fmtRate(m.startRate)} → ${m.stages.map((s) => fmtRate(s.target)).join(' → ')}/s`;
    case 'vus':
      return `closed, ${m.vus} VUs${m.thinkTimeMs ? `, think ${m.thinkTimeMs} ms` : ''}`;
    case 'vus-stages':
      return `closed ramp, ${m.startVus} → ${m.stages.map((s) => s.target).join(' → ')} VUs${m.thinkTimeMs ? `, think ${m.thinkTimeMs} ms` : ''}`;
    case 'per-vu-iterations':
      return `closed, ${m.vus} VUs × ${m.iterations} iterations${m.thinkTimeMs ? `, think ${m.thinkTimeMs} ms` : ''}`;
    case 'shared-iterations':
      return `closed, ${m.vus} VUs sharing ${m.iterations} iterations${m.thinkTimeMs ? `, think ${m.thinkTimeMs} ms` : ''}`;
    case 'hold':
      return `held, ${m.sessions} sessions`;
    default:
      return model.kind;
  }
}

function target(s: LoadServerReport): string {
  const t = s.totals;
  if (t.targetMin !== null && t.targetMax !== null) return t.targetMin === t.targetMax ? `${fmtRate(t.targetMax)}/s` : `${fmtRate(t.targetMin)}–${fmtRate(t.targetMax)}/s`;
  return t.vusMax !== null ? `≤ ${t.vusMax} VUs` : '–';
}

function generator(report: LoadRunReport, s: LoadServerReport): string {
  // Nothing was sent to a server not loaded: no generator to judge.
  if (s.answering && s.answering.of === 0 && s.answering.silence !== null) return '–';
  if (s.generator === null) return report.run.generator_bound ? 'yes (run)' : 'no';
  if (!s.generator.bound) return 'no';
  return s.generator.reasons.length ? `yes: ${s.generator.reasons.join('; ')}` : 'yes';
}

function thresholds(report: LoadRunReport, s: LoadServerReport): string {
  const mine = (report.thresholds ?? []).filter((t) => t.server === null || t.server === s.label);
  if (mine.length === 0) return '–';
  const failed = mine.filter((t) => !t.pass);
  return failed.length === 0 ? `pass (${mine.length})` : `FAIL: ${failed.map((t) => t.text).join('; ')}`;
}

function dropped(s: LoadServerReport): string {
  const intended = s.totals.sent + s.totals.dropped;
  return intended > 0 && s.totals.dropped > 0 ? `${s.totals.dropped} (${((100 * s.totals.dropped) / intended).toFixed(2)}%)` : String(s.totals.dropped);
}

export function loadRunTable(report: LoadRunReport): Table {
  const { run } = report;
  const withThresholds = report.thresholds !== null;
  const withOutages = report.servers.some((s) => s.outages.length > 0);
  const head = ['server', 'model', 'duration', 'target', 'achieved/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', ...(withOutages ? ['outages'] : []), 'dropped', 'generator-bound', ...(withThresholds ? ['thresholds'] : [])];
  const rows = report.servers.map((s) => [
    serverCell(s),
    describeModel(report.model, report.run.model_text ?? null),
    `${s.totals.durationS.toFixed(1)} s`,
    target(s),
    fmtRate(s.totals.achievedRate),
    fmtMs(s.totals.p50Ms),
    fmtMs(s.totals.p99Ms),
    fmtMs(s.totals.maxMs),
    fmtErrors(s.totals.errors),
    ...(withOutages ? [s.outages.map(outageText).join('; ') || '–'] : []),
    dropped(s),
    generator(report, s),
    ...(withThresholds ? [thresholds(report, s)] : []),
  ]);
  const started = run.started_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const held = reportReplyHolds(report.servers);
  const how = report.chosen === 'latest' ? ' — the latest finished load run (name others with --load-run ID)' : '';
  return {
    title: `Load run ${run.number}${how}`,
    note:
      `Started ${started}, ${run.status}; electrum-bench ${run.tool_version}${run.git_commit ? ` @ ${run.git_commit.slice(0, 10)}` : ''}, node ${run.node_version}` +
      (run.dataset_path ? `; dataset ${run.dataset_path}` : '') +
      (run.shard ? `; shard ${run.shard}` : '') +
      '.' +
      (held ? `\n${held}` : ''),
    head,
    align: head.map((h, i) => (i < 2 || ['errors', 'outages', 'generator-bound', 'thresholds'].includes(h) ? 'left' : 'right')),
    rows,
  };
}

/** A server's name, with first what makes its figures partial: it answered nothing, or stopped answering. */
function serverCell(s: LoadServerReport): string {
  const said = s.answering ? answeringText(s.answering) : s.stoppedAnswering ? stoppedAnsweringText(s.stoppedAnswering) : null;
  return said ? `${s.label}: ${said}` : s.label;
}
