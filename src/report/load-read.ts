/**
 * Reads load runs of a results database into LoadRunReports, read-only. Intervals are streamed
 * (LoadStore.intervals): each interval's ok histograms are merged into one scratch histogram for
 * its percentiles and then into the server's whole-run histogram (src/core/seconds-latency.ts), so
 * memory is one row of scalars per interval plus a few histograms per server, however long the run.
 */
import { answeringOf, unreachedAnswering } from '../core/answering';
import type { LoadRunRow, LoadServerRow, LoadStore } from '../store/load-results';
import type { StoredLoadModel } from '../core/load-types';
import type { ResultsReader } from '../store/read';
import type { FindMaxResult, GeneratorVerdict, LoadIntervalPoint, LoadRunReport, LoadServerReport, LoadTotals, ThresholdVerdict } from './load-model';
import { percentileSpectrum } from './spectrum';
import { histogramLine } from '../core/percentile-line';
import { SecondsLatency } from '../core/seconds-latency';
import { isAnswered } from '../core/outcomes';
import { readStoppedAnswering } from '../core/stopped-answering';
import { readOutages } from '../core/outages';
import { isObject, parseStoredJson } from '../core/stored-json';
import { interleavingOf } from '../core/ab-setup';
import { loadAbComparison, readLoadLatency } from '../verdicts/load';

function generatorOf(run: LoadRunRow, server: string): GeneratorVerdict | null {
  const all = parseStoredJson(run.generator_json);
  const g = isObject(all) ? all[server] : undefined;
  if (!isObject(g) || typeof g.bound !== 'boolean') return null;
  return { bound: g.bound, reasons: Array.isArray(g.reasons) ? g.reasons.map(String) : [] };
}

function thresholdsOf(run: LoadRunRow): ThresholdVerdict[] | null {
  const all = parseStoredJson(run.thresholds_json);
  if (!Array.isArray(all) || all.length === 0) return null;
  return all.filter(isObject).map((t) => ({
    text: String(t.threshold ?? t.expression ?? t.text ?? t.name ?? 'threshold'),
    server: typeof t.server === 'string' ? t.server : null,
    pass: t.pass === true,
  }));
}

/** A run's stored find-max searches (a load run's column, or a wallet load's summary), null when it made none. */
export function findMaxOf(raw: unknown): FindMaxResult[] | null {
  const entries = (Array.isArray(raw) ? raw : raw === null ? [] : [raw]).filter(
    (e): e is FindMaxResult => isObject(e) && typeof e.server === 'string' && Array.isArray(e.steps) && isObject(e.slo) && typeof e.slo.thresholdMs === 'number',
  );
  return entries.length > 0 ? entries : null;
}

/**
 * `origin`: the epoch ms its seconds are timed from (an interleaved run's servers share the run's
 * first, so their turns line up); undefined: its own first second. `interleaved`: its seconds' steps
 * are turns, whose percentiles are read too.
 */
function readServer(loads: LoadStore, run: LoadRunRow, server: LoadServerRow, origin: number | undefined, interleaved: boolean): LoadServerReport {
  const latency = new SecondsLatency(`load run ${run.number}, server ${server.name}`);
  const intervals: LoadIntervalPoint[] = [];
  const errors: Record<string, number> = {};
  let t0: number | null = origin ?? null;
  let lengthMs = 0;
  let sent = 0;
  let dropped = 0;
  let ok = 0;
  let answered = 0;
  let targetMin: number | null = null;
  let targetMax: number | null = null;
  let vusMax: number | null = null;
  for (const rec of loads.intervals(run.id, server.id)) {
    t0 ??= rec.startMs;
    const point: LoadIntervalPoint = {
      index: rec.index,
      t: (rec.startMs + rec.lengthMs - t0) / 1000,
      round: interleaved ? rec.step : null,
      targetRate: rec.targetRate,
      vus: rec.vus,
      achievedRate: 0,
      sent: rec.sent,
      dropped: rec.dropped,
      ok: 0,
      errors: {},
      errorCount: 0,
      p50Ms: null,
      p90Ms: null,
      p99Ms: null,
      maxMs: null,
    };
    let intervalAnswered = 0;
    for (const c of rec.cells) {
      if (c.outcome === 'dropped') continue;
      // Achieved is answered: a timeout or a closed connection is no answer.
      if (isAnswered(c.outcome)) intervalAnswered += c.count;
      if (c.outcome === 'ok') {
        point.ok += c.count;
      } else {
        point.errors[c.outcome] = (point.errors[c.outcome] ?? 0) + c.count;
        point.errorCount += c.count;
        errors[c.outcome] = (errors[c.outcome] ?? 0) + c.count;
      }
    }
    point.achievedRate = rec.lengthMs > 0 ? (intervalAnswered * 1000) / rec.lengthMs : 0;
    const line = latency.add(rec, interleaved ? rec.step : null);
    point.p50Ms = line.p50;
    point.p90Ms = line.p90;
    point.p99Ms = line.p99;
    point.maxMs = line.max;
    intervals.push(point);

    lengthMs += rec.lengthMs;
    sent += rec.sent;
    dropped += rec.dropped;
    ok += point.ok;
    answered += intervalAnswered;
    if (rec.targetRate !== null) {
      targetMin = Math.min(targetMin ?? Infinity, rec.targetRate);
      targetMax = Math.max(targetMax ?? -Infinity, rec.targetRate);
    }
    if (rec.vus !== null) vusMax = Math.max(vusMax ?? 0, rec.vus);
  }
  const whole = latency.whole;
  const line = histogramLine(whole, 1000);
  const totals: LoadTotals = {
    durationS: lengthMs / 1000,
    sent,
    ok,
    dropped,
    errors,
    errorCount: Object.values(errors).reduce((a, b) => a + b, 0),
    achievedRate: lengthMs > 0 ? (answered * 1000) / lengthMs : 0,
    targetMin,
    targetMax,
    vusMax,
    p50Ms: line.p50,
    p90Ms: line.p90,
    p99Ms: line.p99,
    maxMs: line.max,
  };
  const outcome = parseStoredJson(server.outcome_json ?? null);
  return {
    label: server.name,
    record: server,
    intervals,
    latency: whole,
    totals,
    spectrum: percentileSpectrum(whole),
    generator: generatorOf(run, server.name),
    stoppedAnswering: isObject(outcome) ? readStoppedAnswering(outcome.stoppedAnswering) : null,
    answering: !isObject(outcome)
      ? null
      : typeof outcome.unreached === 'string'
        ? unreachedAnswering(server.name, outcome.unreached)
        : isObject(outcome.outcomes)
          ? answeringOf(server.name, outcome.outcomes as Record<string, number>, { unit: 'request', stoppedAnswering: readStoppedAnswering(outcome.stoppedAnswering) })
          : null,
    outages: isObject(outcome) ? readOutages(outcome.outages) : [],
    turns: latency.endTurns(),
  };
}

export function readLoadRun(reader: ResultsReader, run: LoadRunRow, chosen: LoadRunReport['chosen']): LoadRunReport {
  const loads = reader.load;
  const model = parseStoredJson(run.model_json);
  const { turnMs, baseline } = interleavingOf(run.config_json);
  const servers = loads.servers(run.id);
  // The servers of an interleaved run took turns on one clock: the run's first second is every server's 0.
  const firsts = turnMs === null ? [] : servers.flatMap((s) => loads.intervals(run.id, s.id).next().value?.startMs ?? []);
  const origin = firsts.length ? Math.min(...firsts) : undefined;
  const ab = baseline !== null ? loadAbComparison(readLoadLatency(loads, run)) : undefined;
  return {
    run,
    chosen,
    model: isObject(model) && typeof model.kind === 'string' ? (model as unknown as StoredLoadModel) : null,
    servers: servers.map((s) => readServer(loads, run, s, origin, turnMs !== null)),
    findMax: findMaxOf(parseStoredJson(run.find_max_json)),
    thresholds: thresholdsOf(run),
    turnMs,
    baseline,
    ...(ab ? { ab } : {}),
  };
}
