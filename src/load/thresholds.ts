/**
 * k6-style thresholds for a load run: pass/fail criteria written on the command line
 * (`--threshold "latency[10s]{method:history}:p(99)<250,abortOnFail"`), judged per server on the
 * IntervalRecords the engine produces, one per second. The tracker keeps bounded state: a
 * whole-run threshold holds one merged histogram and a few counters; a windowed one holds the
 * last W intervals' encoded histograms (a few hundred bytes each) and a running sum that the
 * oldest interval is subtracted from, so a one-hour run costs what its first minute did.
 */
import { isAnswered } from '../core/outcomes';
import * as hdr from 'hdr-histogram-js';
import { METHOD_NAMES, MethodName, isMethodName } from '../core/methods';
import { UserError } from '../core/user-error';
import type { IntervalRecord } from '../core/load-types';

export type ThresholdMetric = 'latency' | 'service' | 'errors' | 'dropped' | 'rps';
export type ThresholdAggregation = { kind: 'p'; percentile: number } | { kind: 'avg' | 'med' | 'min' | 'max' | 'rate' | 'count' };
export type ThresholdOperator = '<' | '<=' | '>' | '>=' | '==' | '!=';
/** What an observed value is measured in: ms (latency, service), a ratio, a count, replies per second. */
export type ThresholdUnit = 'ms' | 'ratio' | 'count' | 'per-second';

export interface Threshold {
  /** As the user wrote it (trimmed), options included: how results and abort reasons name it. */
  text: string;
  /** The criterion without its options, as printed in the result lines. */
  expression: string;
  metric: ThresholdMetric;
  aggregation: ThresholdAggregation;
  operator: ThresholdOperator;
  value: number;
  /** Sliding window length in intervals (seconds); null: the whole run. */
  windowIntervals: number | null;
  method: MethodName | null;
  abortOnFail: boolean;
  unit: ThresholdUnit;
}

export interface ThresholdResult {
  threshold: string;
  server: string;
  /** For a windowed threshold, the worst window's value; null when there was nothing to measure. */
  observed: number | null;
  unit: ThresholdUnit;
  pass: boolean;
  /** Windowed thresholds: the worst window (the first of equally bad ones), by its first interval. */
  window?: { startIndex: number; intervals: number; value: number | null };
}

export interface AbortVerdict {
  threshold: string;
  server: string;
  /** The interval whose arrival made the threshold fail. */
  index: number;
  observed: number | null;
}

export interface TrackerOptions {
  /** Servers to report even if they never produced an interval (judged as a run with no data). */
  servers?: string[];
  /** Intervals a whole-run abortOnFail threshold waits before it may stop the run (k6's delayAbortEval). */
  delayAbortEvalSeconds?: number;
}

export const DEFAULT_DELAY_ABORT_EVAL_SECONDS = 5;
const MAX_WINDOW_SECONDS = 24 * 3600;

const METRIC_ALIASES: Record<string, ThresholdMetric> = {
  latency: 'latency',
  service: 'service',
  errors: 'errors',
  dropped: 'dropped',
  rps: 'rps',
  throughput: 'rps',
};

const AGGREGATIONS: Record<ThresholdMetric, readonly string[]> = {
  latency: ['p(N)', 'avg', 'med', 'min', 'max'],
  service: ['p(N)', 'avg', 'med', 'min', 'max'],
  errors: ['rate', 'count'],
  dropped: ['rate', 'count'],
  rps: ['avg'],
};

const UNITS: Record<ThresholdMetric, (a: ThresholdAggregation) => ThresholdUnit> = {
  latency: () => 'ms',
  service: () => 'ms',
  errors: (a) => (a.kind === 'rate' ? 'ratio' : 'count'),
  dropped: (a) => (a.kind === 'rate' ? 'ratio' : 'count'),
  rps: () => 'per-second',
};

const NUMBER = /^(\d+(\.\d*)?|\.\d+)$/;

/**
 * `METRIC[WINDOW]{method:NAME}:AGG OP VALUE[,abortOnFail]`, window and filter each optional and
 * in either order. Throws a one-line UserError naming the input and what is wrong.
 */
export function parseThreshold(input: string): Threshold {
  const text = input.trim();
  const bad = (why: string) => new UserError(`--threshold "${text}": ${why}`);
  if (text === '') throw bad('empty threshold');

  const [expressionRaw, ...options] = text.split(',');
  let abortOnFail = false;
  for (const o of options.map((s) => s.trim())) {
    if (o !== 'abortOnFail') throw bad(`unknown option "${o}" (the only option is abortOnFail)`);
    abortOnFail = true;
  }
  const expression = expressionRaw.trim();

  const selector = /^([A-Za-z_]+)((?:\s*(?:\[[^\]]*\]|\{[^}]*\}))*)\s*:/.exec(expression);
  if (!selector) throw bad('expected METRIC[WINDOW]{method:NAME}:AGGREGATION OP VALUE, e.g. latency[10s]:p(99)<250');
  const metric = METRIC_ALIASES[selector[1]];
  if (!metric) throw bad(`unknown metric "${selector[1]}" (one of ${Object.keys(METRIC_ALIASES).join(', ')})`);

  let windowIntervals: number | null = null;
  let method: MethodName | null = null;
  for (const m of selector[2].matchAll(/\[([^\]]*)\]|\{([^}]*)\}/g)) {
    if (m[1] !== undefined) {
      if (windowIntervals !== null) throw bad('more than one window');
      windowIntervals = parseWindow(m[1].trim(), bad);
    } else {
      if (method !== null) throw bad('more than one filter');
      const f = /^method\s*:\s*(\S+)$/.exec(m[2].trim());
      if (!f) throw bad(`unknown filter "{${m[2]}}" (only {method:NAME})`);
      if (!isMethodName(f[1])) throw bad(`unknown method "${f[1]}" (one of ${METHOD_NAMES.join(', ')})`);
      method = f[1];
    }
  }

  const condition = expression.slice(selector[0].length).trim();
  const c = /^(p\(([^)]*)\)|[A-Za-z][A-Za-z0-9_]*)\s*(<=|>=|==|!=|<|>)\s*(.*)$/.exec(condition);
  if (!c) {
    if (/^(p\([^)]*\)|[A-Za-z][A-Za-z0-9_]*)/.test(condition)) throw bad('missing or unknown operator (one of < <= > >= == !=)');
    throw bad(`expected an aggregation (${AGGREGATIONS[metric].join(', ')}) after "${selector[0]}"`);
  }
  let aggregation: ThresholdAggregation;
  if (c[2] !== undefined) {
    const p = c[2].trim();
    if (!NUMBER.test(p) || Number(p) > 100) throw bad('percentile must be 0..100');
    aggregation = { kind: 'p', percentile: Number(p) };
  } else {
    const kind = c[1];
    if (!['avg', 'med', 'min', 'max', 'rate', 'count'].includes(kind)) throw bad(`unknown aggregation "${kind}" for ${metric} (one of ${AGGREGATIONS[metric].join(', ')})`);
    aggregation = { kind: kind as 'avg' };
  }
  const allowed = AGGREGATIONS[metric];
  if (!allowed.includes(aggregation.kind === 'p' ? 'p(N)' : aggregation.kind)) {
    throw bad(`${metric} has no ${aggregation.kind === 'p' ? 'percentiles' : aggregation.kind} (one of ${allowed.join(', ')})`);
  }
  // The engine counts requests written per server, not per method: a per-method drop rate would
  // need a denominator nobody measured.
  if (metric === 'dropped' && aggregation.kind === 'rate' && method !== null) throw bad('dropped:rate cannot be filtered by method (use dropped{method:…}:count)');

  const valueText = c[4].trim();
  if (!NUMBER.test(valueText)) throw bad(`value must be a non-negative number, got "${valueText}"`);

  return {
    text,
    expression,
    metric,
    aggregation,
    operator: c[3] as ThresholdOperator,
    value: Number(valueText),
    windowIntervals,
    method,
    abortOnFail,
    unit: UNITS[metric](aggregation),
  };
}

function parseWindow(w: string, bad: (why: string) => UserError): number {
  const m = /^(\d+)(s|m|h)$/.exec(w);
  if (!m) throw bad(`window must be a whole number of seconds, minutes or hours, e.g. [10s], got [${w}]`);
  const seconds = Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
  if (seconds < 1 || seconds > MAX_WINDOW_SECONDS) throw bad(`window must be 1s..24h, got [${w}]`);
  return seconds;
}

/** What one interval contributes to one threshold (its metric, its method filter). */
interface Slice {
  index: number;
  /** Encoded histograms of the ok cells, for latency and service thresholds only. */
  encoded: string[];
  ok: number;
  errors: number;
  /** Replies of any kind (ok and error replies): what `rps` counts; timeouts and disconnects are no answer. */
  answered: number;
  dropped: number;
  scheduled: number;
  lengthMs: number;
  /** Anything scheduled, completed or in flight: an interval of no traffic at all has nothing to judge. */
  active: boolean;
}

type Decoder = (s: string) => hdr.Histogram;

function sliceOf(rec: IntervalRecord, t: Threshold): Slice {
  const timed = t.metric === 'latency' || t.metric === 'service';
  const s: Slice = { index: rec.index, encoded: [], ok: 0, errors: 0, answered: 0, dropped: 0, scheduled: rec.sent + rec.dropped, lengthMs: rec.lengthMs, active: false };
  for (const c of rec.cells) {
    if (t.method !== null && c.method !== t.method) continue;
    if (isAnswered(c.outcome)) s.answered += c.count;
    if (c.outcome === 'ok') {
      s.ok += c.count;
      const h = t.metric === 'service' ? c.service : c.latency;
      if (timed && h !== null && c.count > 0) s.encoded.push(h);
    } else if (c.outcome === 'dropped') {
      s.dropped += c.count;
    } else {
      s.errors += c.count;
    }
  }
  if (t.method === null) {
    s.dropped = rec.dropped;
    s.active = s.scheduled + s.ok + s.errors > 0 || rec.inFlight > 0;
  } else {
    // Requests in flight are not counted per method: a method the mix rarely picks has many
    // seconds with no calls of its own, and those are idle for it, not failures.
    s.active = s.ok + s.errors + s.dropped > 0;
  }
  return s;
}

/** Running sums over a set of intervals; a windowed threshold subtracts the interval that leaves. */
class Aggregate {
  readonly hist: hdr.Histogram | null;
  ok = 0;
  errors = 0;
  answered = 0;
  dropped = 0;
  scheduled = 0;
  spanMs = 0;
  active = 0;

  constructor(timed: boolean) {
    // The recorder's shape (integer µs, 3 significant digits); autoResize because a slow second
    // can bring values beyond anything seen so far.
    this.hist = timed ? hdr.build({ numberOfSignificantValueDigits: 3, bitBucketSize: 32, autoResize: true }) : null;
  }

  apply(s: Slice, sign: 1 | -1, decode: Decoder): void {
    this.ok += sign * s.ok;
    this.errors += sign * s.errors;
    this.answered += sign * s.answered;
    this.dropped += sign * s.dropped;
    this.scheduled += sign * s.scheduled;
    this.spanMs += sign * s.lengthMs;
    this.active += sign * (s.active ? 1 : 0);
    if (this.hist) for (const e of s.encoded) (sign > 0 ? this.hist.add(decode(e)) : this.hist.subtract(decode(e)));
  }

  /**
   * The threshold's metric over these intervals. Latency over no ok call is null, and a null fails
   * whatever the operator (k6: a threshold on a metric with no samples fails). A rate with a zero
   * denominator is 0, as in k6.
   */
  value(t: Threshold): number | null {
    const a = t.aggregation;
    switch (t.metric) {
      case 'latency':
      case 'service': {
        const h = this.hist!;
        if (h.totalCount === 0) return null;
        // Percentile 0 and 100 read the counts, so they stay right after a subtraction (which
        // does not always lower the histogram's tracked maximum).
        const us =
          a.kind === 'p' ? h.getValueAtPercentile(a.percentile) : a.kind === 'med' ? h.getValueAtPercentile(50) : a.kind === 'max' ? h.getValueAtPercentile(100) : a.kind === 'min' ? h.getValueAtPercentile(0) : h.mean;
        return us / 1000;
      }
      case 'errors':
        // Over completed calls rather than the interval's `sent`: a call is counted when it is
        // written but its error when it ends, often seconds later (timeouts), so errors/sent over
        // one window could exceed 1.
        return a.kind === 'count' ? this.errors : this.ok + this.errors > 0 ? this.errors / (this.ok + this.errors) : 0;
      case 'dropped':
        return a.kind === 'count' ? this.dropped : this.scheduled > 0 ? this.dropped / this.scheduled : 0;
      case 'rps':
        return this.spanMs > 0 ? this.answered / (this.spanMs / 1000) : 0;
    }
  }
}

export function passes(t: Threshold, observed: number | null): boolean {
  if (observed === null) return false;
  switch (t.operator) {
    case '<':
      return observed < t.value;
    case '<=':
      return observed <= t.value;
    case '>':
      return observed > t.value;
    case '>=':
      return observed >= t.value;
    case '==':
      return observed === t.value;
    case '!=':
      return observed !== t.value;
  }
}

/**
 * How far a value is on the failing side, so the worst window can be kept in O(1): for every
 * operator, some window fails exactly when the worst one does. No data is the worst of all.
 */
function badness(t: Threshold, v: number | null): number {
  if (v === null) return Infinity;
  switch (t.operator) {
    case '<':
    case '<=':
      return v;
    case '>':
    case '>=':
      return -v;
    case '==':
      return Math.abs(v - t.value);
    case '!=':
      return -Math.abs(v - t.value);
  }
}

interface Judge {
  threshold: Threshold;
  agg: Aggregate;
  /** Windowed thresholds: the last W slices, oldest first. */
  ring: Slice[] | null;
  worst: { startIndex: number; value: number | null; badness: number } | null;
}

interface ServerState {
  judges: Judge[];
  intervals: number;
}

/**
 * Fed with every IntervalRecord as it completes (any order of servers; in index order within
 * one, as the runner emits them); answers whether an abortOnFail threshold has failed, and at
 * the end gives one result per (threshold, server).
 */
export class ThresholdTracker {
  private readonly servers = new Map<string, ServerState>();
  private abortVerdict: AbortVerdict | null = null;
  private readonly delayAbortEval: number;

  constructor(
    readonly thresholds: Threshold[],
    opts: TrackerOptions = {},
  ) {
    this.delayAbortEval = opts.delayAbortEvalSeconds ?? DEFAULT_DELAY_ABORT_EVAL_SECONDS;
    for (const s of opts.servers ?? []) this.state(s);
  }

  private state(server: string): ServerState {
    let st = this.servers.get(server);
    if (!st) {
      const judges = this.thresholds.map((t) => ({
        threshold: t,
        agg: new Aggregate(t.metric === 'latency' || t.metric === 'service'),
        ring: t.windowIntervals === null ? null : [],
        worst: null,
      }));
      this.servers.set(server, (st = { judges, intervals: 0 }));
    }
    return st;
  }

  observe(rec: IntervalRecord): void {
    const st = this.state(rec.server);
    st.intervals++;
    // Several thresholds usually read the same cells (and evict the same old ones): decode each once.
    const decoded = new Map<string, hdr.Histogram>();
    const decode: Decoder = (s) => {
      let h = decoded.get(s);
      if (!h) decoded.set(s, (h = hdr.decodeFromCompressedBase64(s)));
      return h;
    };
    for (const j of st.judges) {
      const t = j.threshold;
      const slice = sliceOf(rec, t);
      j.agg.apply(slice, 1, decode);
      if (j.ring === null) {
        if (t.abortOnFail && st.intervals >= this.delayAbortEval) {
          const v = j.agg.value(t);
          if (!passes(t, v)) this.abortOn(t, rec, v);
        }
        continue;
      }
      j.ring.push(slice);
      if (j.ring.length > t.windowIntervals!) j.agg.apply(j.ring.shift()!, -1, decode);
      if (j.ring.length === t.windowIntervals && j.agg.active > 0) {
        const v = j.agg.value(t);
        const b = badness(t, v);
        if (j.worst === null || b > j.worst.badness) j.worst = { startIndex: j.ring[0].index, value: v, badness: b };
        if (t.abortOnFail && !passes(t, v)) this.abortOn(t, rec, v);
      }
    }
  }

  private abortOn(t: Threshold, rec: IntervalRecord, observed: number | null): void {
    this.abortVerdict ??= { threshold: t.text, server: rec.server, index: rec.index, observed };
  }

  /** The first abortOnFail threshold that failed, and where; stays set once set. */
  shouldAbort(): AbortVerdict | null {
    return this.abortVerdict;
  }

  /** One result per threshold and server, threshold by threshold in the order given. */
  results(): ThresholdResult[] {
    const out: ThresholdResult[] = [];
    for (const [i, t] of this.thresholds.entries()) {
      for (const [server, st] of this.servers) out.push(this.judge(t, server, st.judges[i]));
    }
    return out;
  }

  private judge(t: Threshold, server: string, j: Judge): ThresholdResult {
    const base = { threshold: t.text, server, unit: t.unit };
    if (j.ring === null) {
      const observed = j.agg.value(t);
      return { ...base, observed, pass: passes(t, observed) };
    }
    let worst = j.worst;
    // A run shorter than its window is judged on the one (partial) window it has.
    if (worst === null && j.ring.length > 0 && j.agg.active > 0) {
      const v = j.agg.value(t);
      worst = { startIndex: j.ring[0].index, value: v, badness: badness(t, v) };
    }
    if (worst === null) {
      // Nothing happened in any window: judged as a run with no data.
      const observed = new Aggregate(t.metric === 'latency' || t.metric === 'service').value(t);
      return { ...base, observed, pass: passes(t, observed) };
    }
    return { ...base, observed: worst.value, pass: passes(t, worst.value), window: { startIndex: worst.startIndex, intervals: t.windowIntervals!, value: worst.value } };
  }

  /** The most intervals any windowed threshold holds for one server (never more than its window). */
  retainedIntervals(): number {
    let n = 0;
    for (const st of this.servers.values()) for (const j of st.judges) n = Math.max(n, j.ring?.length ?? 0);
    return n;
  }

  format(): string {
    return formatThresholdResults(this.results());
  }
}

/** Parses every `--threshold` (the first bad one throws) into a tracker. */
export function createThresholdTracker(texts: string[], opts?: TrackerOptions): ThresholdTracker {
  return new ThresholdTracker(texts.map(parseThreshold), opts);
}

function formatValue(v: number | null, unit: ThresholdUnit): string {
  if (v === null) return 'no data';
  switch (unit) {
    case 'ms':
      return `${v.toFixed(v < 10 ? 2 : 1)}ms`;
    case 'ratio':
      return String(Number(v.toFixed(4)));
    case 'count':
      return String(v);
    case 'per-second':
      return `${v.toFixed(1)}/s`;
  }
}

/** k6's summary lines: `✓ latency:p(99)<250 [electrumx] 12.3ms`, worst window when windowed. */
export function formatThresholdResults(results: ThresholdResult[]): string {
  return results
    .map((r) => {
      const expression = r.threshold.split(',')[0].trim();
      const where = r.window ? ` (worst ${r.window.intervals}s window from ${r.window.startIndex}s)` : '';
      return `${r.pass ? '✓' : '✗'} ${expression} [${r.server}] ${formatValue(r.observed, r.unit)}${where}`;
    })
    .join('\n');
}
