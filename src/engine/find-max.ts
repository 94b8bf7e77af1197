/**
 * The breaking point: the highest constant arrival rate a server sustains under a latency
 * objective. After a warm-up, the rate steps up geometrically, each step dwelling long enough to
 * be judged; a step passes when its p-th percentile latency (from the intended send) is within the
 * SLO, its errors and timeouts within the limit, and the achieved rate at least 95 % of the target.
 * Then the search bisects between the last passing and the first failing rate.
 *
 * When a failing step also shows the generator falling behind (scheduling lag, loop delay), the
 * limit found is the generator's, and the result says so instead of calling it the server's —
 * unless the step fails on the server's own time alone: its SLO percentile of service time (from
 * the actual write, so without our send lag) is over the bound even after taking off the longest
 * the loop may have kept an answer waiting (its delay p99), or its errors alone are over the limit.
 * A late generator adds to a latency; it cannot make a server's own answers slow or wrong.
 */
import type { ServerTarget } from '../servers/targets';
import { LoadStopped, type LoadRunner, type Segment, type ServerResult } from './runner';
import { UnitsNotOpened } from './unit-source';
import { UserError } from '../core/user-error';
import { histogramAt } from '../core/percentile-line';
import { answeredOf } from '../core/outcomes';
import { fmtRate } from '../core/rate-text';
import { until } from '../core/until';

export interface Slo {
  percentile: number; // e.g. 99
  thresholdMs: number;
  text: string;
}

export interface FindMaxOptions {
  slo: Slo;
  maxErrorRate: number;
  dwellMs: number;
  warmupMs: number;
  startRate: number;
  factor: number;
  maxRate: number;
  bisectSteps: number;
}

export interface StepResult {
  step: number;
  phase: 'warmup' | 'ramp' | 'bisect';
  targetRate: number;
  achievedRate: number;
  p50Ms: number | null;
  p99Ms: number | null;
  sloValueMs: number | null;
  errorRate: number;
  generatorBound: boolean;
  /** The step fails on the server's own time alone (service time, errors): the generator's lateness did not decide it. */
  failsOnServerAlone: boolean;
  passed: boolean;
  why: string;
  /** The step could not connect (the server went down under the one before): nothing of it was sent; errorRate counts all of it. */
  notStarted?: true;
}

export interface FindMaxResult {
  server: string;
  slo: { percentile: number; thresholdMs: number; text: string };
  maxErrorRate: number;
  steps: StepResult[];
  maxSustainableRate: number | null;
  /** 'server-down': a step after the first could not connect (StepResult.notStarted), and the search ended there. */
  limitedBy: 'server' | 'server-down' | 'generator' | 'max-rate' | 'interrupted';
  statement: string;
  /** Where the generator and the server could run (their CPUs), as the command found it. */
  pinning?: string;
}

/**
 * `p99<100ms`, `p(99.9)<50`, `p95<=0.2s`: a percentile of latency and its bound; a wallet load's
 * may name its unit first (`sync p99<2s`, `subjects` ['sync']), which says what the latency is of.
 */
export function parseSlo(text: string, subjects: readonly string[] = [], option = '--slo'): Slo {
  const m = /^\s*(?:([a-z-]+)\s+)?p\(?\s*([0-9.]+)\s*\)?\s*<=?\s*([0-9.]+)\s*(ms|s)?\s*$/.exec(text);
  const percentile = m ? Number(m[2]) : NaN;
  const example = subjects.length ? `"${subjects[0]} p99<2s"` : '"p99<100ms"';
  if (!m || !(percentile > 0 && percentile < 100)) throw new UserError(`${option}: cannot parse ${JSON.stringify(text)}; expected e.g. ${example}`);
  if (m[1] !== undefined && !subjects.includes(m[1])) {
    throw new UserError(`${option}: ${JSON.stringify(text)} names ${JSON.stringify(m[1])}, ${subjects.length ? `but only ${subjects.join(', ')} is measured here` : 'but a request load judges every request; leave it out'}`);
  }
  const thresholdMs = Number(m[3]) * (m[4] === 's' ? 1000 : 1);
  if (!(thresholdMs > 0)) throw new UserError(`${option}: the bound in ${JSON.stringify(text)} must be above 0`);
  return { percentile, thresholdMs, text: text.trim() };
}

function judge(r: ServerResult, target: number, o: FindMaxOptions, step: number, phase: StepResult['phase']): StepResult {
  const t = r.totals;
  let errors = 0;
  for (const [k, v] of t.byOutcome) if (k !== 'ok' && k !== 'dropped') errors += v;
  const answered = answeredOf(t.byOutcome);
  const seconds = Math.max(0.001, r.durationMs / 1000);
  // Dropped, timed-out and disconnected requests were never answered: they count against the
  // achieved rate (timeouts and disconnects also count as errors).
  const achievedRate = answered / seconds;
  const errorRate = t.sent + t.dropped > 0 ? (errors + t.dropped) / (t.sent + t.dropped) : 0;
  const pct = (q: number) => histogramAt(t.latency, q, 1000);
  const sloValueMs = pct(o.slo.percentile);
  const reasons: string[] = [];
  if (sloValueMs === null || sloValueMs > o.slo.thresholdMs) reasons.push(`p${o.slo.percentile} ${sloValueMs?.toFixed(1) ?? '-'} ms > ${o.slo.thresholdMs} ms`);
  if (errorRate > o.maxErrorRate) reasons.push(`errors+dropped ${(errorRate * 100).toFixed(2)}% > ${(o.maxErrorRate * 100).toFixed(2)}%`);
  if (achievedRate < 0.95 * target) reasons.push(`achieved ${achievedRate.toFixed(0)}/s < 95% of ${target.toFixed(0)}/s`);
  const serviceMs = histogramAt(t.service, o.slo.percentile, 1000);
  const serviceAlone = serviceMs !== null && serviceMs - r.generator.loopDelayP99Ms > o.slo.thresholdMs;
  const errorsAlone = t.sent + t.dropped > 0 && errors / (t.sent + t.dropped) > o.maxErrorRate;
  if (reasons.length > 0 && r.generator.bound && serviceAlone) {
    reasons.push(`service time alone p${o.slo.percentile} ${serviceMs.toFixed(1)} ms > ${o.slo.thresholdMs} ms + the loop's delay p99 ${r.generator.loopDelayP99Ms.toFixed(1)} ms`);
  }
  return {
    step,
    phase,
    targetRate: target,
    achievedRate: Math.round(achievedRate * 10) / 10,
    p50Ms: pct(50),
    p99Ms: pct(99),
    sloValueMs,
    errorRate,
    generatorBound: r.generator.bound,
    failsOnServerAlone: reasons.length > 0 && (serviceAlone || errorsAlone),
    passed: reasons.length === 0,
    why: reasons.join('; ') || 'within the SLO',
  };
}

/** How long a step that could not connect waits before it tries once more. */
const REOPEN_AFTER_MS = 1000;

/** A step whose connections could not be opened: none of its requests was sent, so none was answered (its errorRate counts all of them). */
function notStarted(target: number, step: number, phase: StepResult['phase'], why: string): StepResult {
  return { step, phase, targetRate: target, achievedRate: 0, p50Ms: null, p99Ms: null, sloValueMs: null, errorRate: 1, generatorBound: false, failsOnServerAlone: false, passed: false, why, notStarted: true };
}

/**
 * Runs the search on one server. `runStep(rate, durationMs, step)` runs one constant-rate segment
 * and returns its result; the caller stores its intervals under that step.
 */
export async function findMax(
  runner: LoadRunner,
  target: ServerTarget,
  o: FindMaxOptions,
  runStep: (rate: number, durationMs: number, step: number) => Promise<ServerResult>,
  onStep: (s: StepResult) => void,
): Promise<FindMaxResult> {
  const steps: StepResult[] = [];
  let step = 0;
  // Once a step has run, what it measured is the server's record and is kept: a stop while a later
  // step connects ends the search as interrupted (null), and a server that still takes no
  // connection at all after a second's wait (it went down; the wait lets a per-address cap count
  // the last step's closed sockets out) fails the step it could not start, and the search ends
  // there. Before the first step both are the run's, as for any run, and so is a server that takes
  // some of the step's connections and not all (a cap).
  let down: StepResult | null = null;
  const attempt = async (rate: number, phase: StepResult['phase'], durationMs = o.dwellMs): Promise<StepResult | null> => {
    let s: StepResult | undefined;
    for (let tries = 0; !s; tries++) {
      try {
        s = judge(await runStep(rate, durationMs, step), rate, o, step, phase);
      } catch (err) {
        if (steps.length === 0) throw err;
        if (err instanceof LoadStopped) return null;
        if (!(err instanceof UnitsNotOpened)) throw err;
        if (tries === 0) await until(() => false, REOPEN_AFTER_MS, () => runner.stopped);
        if (runner.stopped) return null;
        if (tries === 0) continue;
        // Still taking some of our connections: a cap, the user's to lift (--source-addresses).
        if (!err.tookNone) throw err;
        s = down = notStarted(rate, step, phase, err.message);
      }
    }
    step++;
    steps.push(s);
    onStep(s);
    return s;
  };
  if (o.warmupMs > 0) await attempt(o.startRate, 'warmup', o.warmupMs);
  let lastPass: StepResult | null = null;
  let firstFail: StepResult | null = null;
  for (let rate = o.startRate; rate <= o.maxRate && !runner.stopped && !down; rate = Math.ceil(rate * o.factor)) {
    const s = await attempt(rate, 'ramp');
    if (!s || s.notStarted) break;
    if (s.passed) lastPass = s;
    else {
      firstFail = s;
      break;
    }
  }
  for (let i = 0; i < o.bisectSteps && lastPass && firstFail && !runner.stopped && !down; i++) {
    const mid = Math.round((lastPass.targetRate + firstFail.targetRate) / 2);
    if (mid <= lastPass.targetRate || mid >= firstFail.targetRate) break;
    const s = await attempt(mid, 'bisect');
    if (!s || s.notStarted) break;
    if (s.passed) lastPass = s;
    else firstFail = s;
  }
  const maxSustainableRate = lastPass?.targetRate ?? null;
  let limitedBy: FindMaxResult['limitedBy'] = 'server';
  if (runner.stopped) limitedBy = 'interrupted';
  else if (down) limitedBy = 'server-down';
  else if (!firstFail) limitedBy = 'max-rate';
  else if (firstFail.generatorBound && !firstFail.failsOnServerAlone) limitedBy = 'generator';
  const statement =
    limitedBy === 'server-down'
      ? `${target.name}: went down during the search: step ${down!.step} (${down!.targetRate}/s) could not start (${down!.why}); ` +
        `highest rate passed before it: ${maxSustainableRate === null ? 'none' : `${maxSustainableRate}/s`} under ${o.slo.text}` +
        (firstFail ? `; ${firstFail.targetRate}/s had failed (${firstFail.why})` : '')
      : limitedBy === 'generator'
        ? maxSustainableRate === null
          ? `${target.name}: the generator fell behind already at the start rate ${firstFail!.targetRate}/s (scheduling lag or loop delay; ${firstFail!.why}): no figure for the server`
          : `${target.name}: the generator, not the server, fell behind at ${firstFail!.targetRate}/s (scheduling lag or loop delay): the server sustains at least ${maxSustainableRate}/s under ${o.slo.text}; its own limit was not reached`
        : limitedBy === 'max-rate'
          ? `${target.name}: sustained every step up to --max-rate ${o.maxRate}/s under ${o.slo.text}`
          : limitedBy === 'interrupted'
            ? `${target.name}: interrupted; highest passing rate so far ${maxSustainableRate ?? 'none'}`
            : maxSustainableRate === null
              ? `${target.name}: not even the start rate ${o.startRate}/s is sustained under ${o.slo.text} (${firstFail!.why})`
              : `${target.name}: max sustainable throughput ${maxSustainableRate}/s under ${o.slo.text} (next step ${firstFail!.targetRate}/s failed: ${firstFail!.why})`;
  return { server: target.name, slo: o.slo, maxErrorRate: o.maxErrorRate, steps, maxSustainableRate, limitedBy, statement };
}

/**
 * The search on one server, its steps run as segments of one run: each step numbers its intervals
 * on from the last step's (from `from.indexBase`, after what the server's run did before), so the
 * steps follow each other in the stored run; their units are `from.units` (the run's requests
 * unless told). Also returns the result of every step that ran, in order (`runs`: a step that could
 * not start has none), the last one also on its own (`last`: the server's summary after a search is
 * of its last step that ran), and the index the server's next second takes.
 */
export async function findMaxOnServer(
  runner: LoadRunner,
  target: ServerTarget,
  serverIndex: number,
  o: FindMaxOptions,
  onStep: (s: StepResult) => void,
  from: Pick<Segment, 'indexBase' | 'units'> = {},
): Promise<{ found: FindMaxResult; last: ServerResult; runs: ServerResult[]; nextIndex: number }> {
  let indexBase = from.indexBase ?? 0;
  let last: ServerResult | undefined;
  const runs: ServerResult[] = [];
  const found = await findMax(
    runner,
    target,
    o,
    async (rate, durationMs, step) => {
      last = await runner.runServer(target, serverIndex, { model: { kind: 'rate', rate }, durationMs, indexBase, step, units: from.units });
      runs.push(last);
      indexBase += last.intervals;
      return last;
    },
    onStep,
  );
  return { found, last: last!, runs, nextIndex: indexBase };
}

/** How a search paced its server, as a run's record describes its model: "find-max under p99<100ms, 20/s ×2 up to 160/s, 2 s a step". */
export function describeSearch(o: FindMaxOptions): string {
  return `find-max under ${o.slo.text}, ${fmtRate(o.startRate)}/s ×${o.factor} up to ${fmtRate(o.maxRate)}/s, ${o.dwellMs / 1000} s a step`;
}

/** One step as the progress shows it. */
export function stepLine(target: ServerTarget, s: StepResult, o: FindMaxOptions): string {
  if (s.notStarted) return `${target.name} step ${s.step} (${s.phase}) ${s.targetRate}/s: not started, nothing sent → FAIL (${s.why})`;
  return (
    `${target.name} step ${s.step} (${s.phase}) ${s.targetRate}/s: achieved ${s.achievedRate}/s, p${o.slo.percentile} ${s.sloValueMs?.toFixed(1) ?? '-'} ms, ` +
    `errors+dropped ${(s.errorRate * 100).toFixed(2)}% → ${s.passed ? 'pass' : `FAIL (${s.why})`}` +
    (s.generatorBound ? (s.failsOnServerAlone ? ' [generator-bound, but it fails on the server alone]' : ' [generator-bound]') : '')
  );
}
