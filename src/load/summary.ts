/**
 * What a load run prints: a line per second while it runs, and at the end a table per server
 * (sent and answered rates, latency from the intended send, service time, errors by category with
 * their onset, dropped, the generator's own lag) as text, from the engine's summary
 * (src/engine/summary.ts). A server that stopped answering is said so first.
 */
import { textTable } from '../core/text-table';
import { MATERIAL_SHARE, shareAtRisk } from '../core/generator-check';
import { answeringText, type Answering } from '../core/answering';
import type { IntervalRecord } from '../core/load-types';
import type { LiveCounts } from '../engine/sinks/hdr-intervals';
import type { ServerSummary } from '../engine/summary';
import { outageText } from '../core/outages';
import { replyHoldLine, replyHolds } from '../servers/reply-hold';

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

/** ElectrumX's reply hold, for each server whose latencies contain it (src/servers/reply-hold.ts). */
export const loadReplyHolds = (summaries: readonly ServerSummary[]) => replyHolds(summaries.map((s) => ({ name: s.server, software: s.software, url: s.url, replies: s.replies })));

const f = (v: number | null) => (v === null ? '-' : v.toFixed(v < 10 ? 3 : 1));

export function summaryText(summaries: ServerSummary[], answering: readonly Answering[], runId: number, db: string): string {
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
  const silent = answering.flatMap((a) => {
    const said = answeringText(a);
    return said ? [`${a.server}: ${said}`] : [];
  });
  const gone = summaries.flatMap((s) => s.outages.map((o) => `${s.server}: ${outageText(o)}`));
  const held = loadReplyHolds(summaries).map(replyHoldLine);
  const outcomeLines = summaries.map((s) => `outcomes (${s.server}): ${Object.entries(s.outcomes).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'} = ${s.scheduled} scheduled`);
  const generator = summaries.map(
    (s) =>
      `generator (${s.server}): scheduling lag p99 ${ms(s.generator.lagP99Us)} ms, max ${ms(s.generator.lagMaxUs)} ms; event-loop delay p99 ${s.generator.loopDelayP99Ms} ms; ` +
      `CPU ${(s.generator.cpuUtilisation * 100).toFixed(0)}% of one core; ${lateText(s.generator)}` +
      (s.generator.bound ? `\nwarning: ${s.server}: GENERATOR-BOUND (${s.generator.reasons.join('; ')}): part of these latencies is the generator's, not the server's` : ''),
  );
  return [
    `load run ${runId}: latency from each request's intended send (no coordinated omission); service = from the actual write; answered = replies of any kind; written to ${db}`,
    ...silent,
    ...gone,
    ...held,
    '',
    table,
    '',
    ...outcomeLines,
    ...generator,
  ].join('\n');
}

/**
 * The share the generator check is taken on (units sent or started late by us), said whether or not
 * it is over the check's 1 %. A closed model sends nothing late: there the loop delay is judged.
 */
function lateText(g: { atRisk: number; judged: number }): string {
  return `${g.atRisk} of ${g.judged} (${(100 * shareAtRisk(g.atRisk, g.judged)).toFixed(1)}%) late by more than ${MATERIAL_SHARE * 100}% of their latency`;
}
