/**
 * A server's turns of an interleaved run (interleave.ts) as one ServerResult, so that its summary
 * (summary.ts) says what a run of the whole model would: every unit of every turn one outcome,
 * the answered rate over the time the server was loaded (the turns' schedules, not the other
 * servers' turns between them), percentiles from the turns' HDR histograms added up (sumOf, as
 * the shards' seconds of one test are), and the generator judged on every unit of every turn.
 * Times (outages, when it stopped answering, an error's onset) are on the clock of its first turn:
 * seconds since it was first loaded, the other servers' turns included.
 */
import { generatorVerdict, GeneratorTally } from '../core/generator-check';
import { histogramAt } from '../core/percentile-line';
import { AnswerWatch } from '../core/stopped-answering';
import { OutageLog } from '../core/outages';
import { loopDelayReason, type ServerResult } from './runner';
import { newHistogram, sumOf, type Totals } from './sinks/hdr-intervals';
import type { UnitSource } from './unit-source';

export interface TurnsPaced {
  /** The run's model is closed: the generator's loop delay is judged too (runner.ts). */
  closed: boolean;
  /** The units, in the generator check's words. */
  words: UnitSource['words'];
}

const STATUS_ORDER: ReadonlyArray<ServerResult['status']> = ['completed', 'interrupted', 'aborted'];

/** `turns` (one server's, in time order, at least one) as one result. */
export function mergeTurns(turns: readonly ServerResult[], paced: TurnsPaced): ServerResult {
  const [first] = turns;
  const offsetMs = (r: ServerResult) => r.startedAtMs - first.startedAtMs;
  const sum = (pick: (r: ServerResult) => number) => turns.reduce((n, r) => n + pick(r), 0);
  const totals = mergeTotals(turns, offsetMs);
  const latencyP50Ms = histogramAt(totals.latency, 50, 1000);

  const verdict = generatorVerdict(totals.generator.atRisk, totals.generator.units, paced.words.units, paced.words.late);
  // A p99 of one turn's loop delay cannot be added to another's: the worst turn's stands for all.
  const loopDelayP99Ms = Math.max(...turns.map((r) => r.generator.loopDelayP99Ms));
  const loopReason = paced.closed ? loopDelayReason(loopDelayP99Ms, latencyP50Ms) : null;
  if (loopReason) {
    verdict.bound = true;
    verdict.reasons.push(loopReason);
  }
  const durationMs = sum((r) => r.durationMs);

  const refusals = turns.filter((r) => r.refused > 0 && r.firstRefusedAtMs !== null).map((r) => r.firstRefusedAtMs! + offsetMs(r));
  const onsetMs: Record<string, number> = {};
  for (const r of turns) {
    for (const [category, ms] of Object.entries(r.onsetMs)) onsetMs[category] = Math.min(onsetMs[category] ?? Infinity, ms + offsetMs(r));
  }
  return {
    server: first.server,
    url: first.url,
    software: turns.find((r) => r.software !== null)?.software ?? null,
    protocol: turns.find((r) => r.protocol !== null)?.protocol ?? null,
    durationMs,
    startedAtMs: first.startedAtMs,
    totals,
    generator: {
      lagP99Us: totals.lag.totalCount > 0 ? totals.lag.getValueAtPercentile(99) : null,
      lagMaxUs: totals.lag.totalCount > 0 ? totals.lag.maxValue : null,
      loopDelayP99Ms,
      cpuUtilisation: durationMs > 0 ? Math.round((sum((r) => r.generator.cpuUtilisation * r.durationMs) / durationMs) * 1000) / 1000 : 0,
      atRisk: totals.generator.atRisk,
      judged: totals.generator.units,
      bound: verdict.bound,
      reasons: verdict.reasons,
    },
    refused: sum((r) => r.refused),
    firstRefusedAtMs: refusals.length > 0 ? Math.min(...refusals) : null,
    onsetMs,
    intervals: sum((r) => r.intervals),
    lateReplies: sum((r) => r.lateReplies),
    status: turns.map((r) => r.status).reduce((worst, s) => (STATUS_ORDER.indexOf(s) > STATUS_ORDER.indexOf(worst) ? s : worst)),
  };
}

function mergeTotals(turns: readonly ServerResult[], offsetMs: (r: ServerResult) => number): Totals<string> {
  const all = turns.map((r) => r.totals);
  const count = (pick: (t: Totals<string>) => number) => all.reduce((n, t) => n + pick(t), 0);
  const byOutcome = new Map<string, number>();
  for (const t of all) for (const [outcome, n] of t.byOutcome) byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + n);
  const perMethod: Totals<string>['perMethod'] = new Map();
  for (const t of all) {
    for (const [method, m] of t.perMethod) {
      let into = perMethod.get(method);
      if (!into) perMethod.set(method, (into = { ok: 0, errors: 0, latency: newHistogram() }));
      into.ok += m.ok;
      into.errors += m.errors;
      into.latency.add(m.latency);
    }
  }
  const generator = new GeneratorTally();
  for (const t of all) {
    generator.atRisk += t.generator.atRisk;
    generator.units += t.generator.units;
  }
  const offsetNs = (r: ServerResult) => offsetMs(r) * 1e6;
  const last = turns[turns.length - 1];
  return {
    sent: count((t) => t.sent),
    dropped: count((t) => t.dropped),
    byOutcome,
    latency: sumOf(all.map((t) => t.latency)),
    service: sumOf(all.map((t) => t.service)),
    lag: sumOf(all.map((t) => t.lag)),
    bytes: count((t) => t.bytes),
    perMethod,
    cutShort: count((t) => t.cutShort),
    notSent: count((t) => t.notSent),
    answers: AnswerWatch.joined(turns.map((r) => ({ watch: r.totals.answers, offset: offsetNs(r) }))),
    endNs: last.totals.endNs === null ? null : last.totals.endNs + offsetNs(last),
    generator,
    outages: OutageLog.joined(
      turns.map((r) => ({ log: r.totals.outages, offsetNs: offsetNs(r), firstAnswerNs: r.totals.answers.firstAnswer })),
    ),
  };
}
