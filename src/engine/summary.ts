/**
 * The summary of a server's units, from its HDR totals (src/engine/sinks/hdr-intervals.ts): every
 * run kind that paces units through the runner (requests, wallet syncs) is summed up here, one way.
 * A rate "achieved" is answered units per second: timeouts and closed connections are no answers.
 */
import type { ObservedReplies } from '../core/observed-replies';
import { histogramLine } from '../core/percentile-line';
import { answeredOf } from '../core/outcomes';
import { stoppedAnswering, type StoppedAnswering } from '../core/stopped-answering';
import type { Outage } from '../core/outages';
import type { ServerResult } from './runner';

export interface ServerSummary {
  server: string;
  url: string;
  software: string | null;
  /** What the server showed of held replies before the run (ElectrumX's hold, runs/reachable.ts); absent when not looked at. */
  replies?: ObservedReplies | null;
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
