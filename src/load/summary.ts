/**
 * What a load run prints: a line per second while it runs, and at the end a table per server
 * (sent and answered rates, latency from the intended send, service time, errors by category with
 * their onset, dropped, the generator's own lag) as text or JSON. A rate "achieved" is answered
 * units per second: timeouts and closed connections are no answers. A server that stopped
 * answering is said so first.
 */
import { textTable } from '../core/text-table';
import { histogramLine } from '../core/percentile-line';
import { answeredOf } from '../core/outcomes';
import { stoppedAnswering, stoppedAnsweringText, type StoppedAnswering } from '../core/stopped-answering';
import type { ServerResult } from './runner';
import type { IntervalRecord } from '../core/load-types';
import type { LiveCounts } from '../engine/sinks/hdr-intervals';
import { outageText, type Outage } from '../core/outages';

const ms = (us: number | null | undefined) => (us === null || us === undefined ? '-' : (us / 1000).toFixed(us < 10_000 ? 2 : 1));

/** One console line for a finished second. */
export function intervalLine(rec: IntervalRecord, live: LiveCounts): string {
  const target = rec.targetRate !== null ? `target ${rec.targetRate.toFixed(0)}/s` : `vus ${rec.vus ?? 0}`;
  const rate = (live.answered * 1000) / Math.max(1, rec.lengthMs);
  return (
    `${rec.server} ${String(rec.index + 1).padStart(4)}s  ${target}  answered ${rate.toFixed(0)}/s  sent ${live.sent}  in flight ${rec.inFlight}  ` +
    `p50 ${ms(live.p50Us)} ms  p99 ${ms(live.p99Us)} ms  errors ${live.errors}  dropped ${live.dropped}`
  );
}

export interface ServerSummary {
  server: string;
  url: string;
  software: string;
  status: string;
  durationS: number;
  sent: number;
  ok: number;
  errors: Record<string, number>;
  dropped: number;
  /** Replies of any kind (ok and error replies; not timeouts, closed connections, dropped). */
  answered: number;
  /** Answered units per second of the schedule (the name is kept for readers of earlier summaries). */
  achievedRps: number;
  sentRps: number;
  /** Every scheduled unit's one outcome: ok, each error category, dropped, cut-short, not-sent. */
  outcomes: Record<string, number>;
  /** The sum of `outcomes`: every unit the run scheduled (open model) or started (closed model). */
  scheduled: number;
  stoppedAnswering: StoppedAnswering | null;
  /** When the server was gone (disconnects, refused connections), each until its next answer. */
  outages: Outage[];
  latencyMs: { p50: number | null; p90: number | null; p99: number | null; p999: number | null; max: number | null };
  serviceMs: { p50: number | null; p99: number | null };
  errorOnsetS: Record<string, number>;
  refusedConnections: number;
  refusedOnsetS: number | null;
  generator: ServerResult['generator'];
  lateReplies: number;
}

export function summarise(r: ServerResult): ServerSummary {
  const t = r.totals;
  const ok = t.byOutcome.get('ok') ?? 0;
  const errors: Record<string, number> = {};
  for (const [k, v] of t.byOutcome) if (k !== 'ok' && k !== 'dropped') errors[k] = v;
  const outcomes: Record<string, number> = Object.fromEntries(t.byOutcome);
  if (t.cutShort > 0) outcomes['cut-short'] = t.cutShort;
  if (t.notSent > 0) outcomes['not-sent'] = t.notSent;
  const scheduled = Object.values(outcomes).reduce((a, b) => a + b, 0);
  const answered = answeredOf(t.byOutcome);
  const seconds = Math.max(0.001, r.durationMs / 1000);
  const s = (ns: number | null) => (ns === null ? null : ns / 1e9);
  const latency = histogramLine(t.latency, 1000);
  const service = histogramLine(t.service, 1000);
  const onset: Record<string, number> = {};
  for (const [k, v] of Object.entries(r.onsetMs)) onset[k] = v / 1000;
  return {
    server: r.server,
    url: r.url,
    software: r.software,
    status: r.status,
    durationS: Math.round(r.durationMs) / 1000,
    sent: t.sent,
    ok,
    errors,
    dropped: t.dropped,
    answered,
    achievedRps: Math.round((answered / seconds) * 10) / 10,
    sentRps: Math.round((t.sent / seconds) * 10) / 10,
    outcomes,
    scheduled,
    stoppedAnswering: stoppedAnswering({ answered, of: scheduled, lastAnswerS: s(t.answers.lastAnswer), unansweredAfterLastAnswer: t.answers.unansweredAfter, endS: s(t.endNs) ?? seconds }),
    outages: t.outages.outages(r.startedAtMs),
    latencyMs: { p50: latency.p50, p90: latency.p90, p99: latency.p99, p999: latency.p999, max: latency.max },
    serviceMs: { p50: service.p50, p99: service.p99 },
    errorOnsetS: onset,
    refusedConnections: r.refused,
    refusedOnsetS: r.firstRefusedAtMs === null ? null : r.firstRefusedAtMs / 1000,
    generator: r.generator,
    lateReplies: r.lateReplies,
  };
}

/** What the run's record keeps of a server's outcomes (run_servers.outcome_json), for the report. */
export function storedOutcome(s: ServerSummary): Record<string, unknown> {
  return { outcomes: s.outcomes, scheduled: s.scheduled, sent: s.sent, answered: s.answered, achievedRps: s.achievedRps, sentRps: s.sentRps, stoppedAnswering: s.stoppedAnswering, outages: s.outages };
}

const f = (v: number | null) => (v === null ? '-' : v.toFixed(v < 10 ? 3 : 1));

export function summaryText(summaries: ServerSummary[], runId: number, db: string): string {
  const rows = summaries.map((s) => [
    s.server,
    s.stoppedAnswering ? `${s.status}, stopped answering` : s.status,
    `${s.durationS.toFixed(1)}s`,
    String(s.sent),
    String(s.answered),
    String(s.achievedRps),
    f(s.latencyMs.p50),
    f(s.latencyMs.p90),
    f(s.latencyMs.p99),
    f(s.latencyMs.max),
    f(s.serviceMs.p99),
    [
      ...Object.entries(s.errors).map(([k, v]) => `${k}:${v}${s.errorOnsetS[k] !== undefined ? `@${s.errorOnsetS[k]}s` : ''}`),
      ...(s.refusedConnections > 0 ? [`refused-connections:${s.refusedConnections}@${s.refusedOnsetS}s`] : []),
    ].join(' ') || '0',
    String(s.dropped),
  ]);
  const table = textTable(['server', 'status', 'time', 'sent', 'answered', 'answered/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'service p99', 'errors (onset)', 'dropped'], rows, {
    align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'right'],
  });
  // Before anything else about it: a server that went silent makes every other figure of it partial.
  const silent = summaries.filter((s) => s.stoppedAnswering).map((s) => `${s.server}: ${stoppedAnsweringText(s.stoppedAnswering!)}`);
  const gone = summaries.flatMap((s) => s.outages.map((o) => `${s.server}: ${outageText(o)}`));
  const outcomeLines = summaries.map((s) => `outcomes (${s.server}): ${Object.entries(s.outcomes).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'} = ${s.scheduled} scheduled`);
  const generator = summaries.map(
    (s) =>
      `generator (${s.server}): scheduling lag p99 ${ms(s.generator.lagP99Us)} ms, max ${ms(s.generator.lagMaxUs)} ms; event-loop delay p99 ${s.generator.loopDelayP99Ms} ms; ` +
      `CPU ${(s.generator.cpuUtilisation * 100).toFixed(0)}% of one core` +
      (s.generator.bound ? `\nwarning: ${s.server}: GENERATOR-BOUND (${s.generator.reasons.join('; ')}): part of these latencies is the generator's, not the server's` : ''),
  );
  return [
    `load run ${runId}: latency from each request's intended send (no coordinated omission); service = from the actual write; answered = replies of any kind; written to ${db}`,
    ...silent,
    ...gone,
    '',
    table,
    '',
    ...outcomeLines,
    ...generator,
  ].join('\n');
}
