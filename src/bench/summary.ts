/** The run's summary as a plain-text table for stdout, and as JSON for --json. */
import { textTable } from '../core/text-table';
import { P999_MIN_SAMPLES, P999_NOTE } from '../core/percentile-line';
import type { RunResult } from './runner';
import type { ColdSummary } from '../store/statistics';

const ms = (ns: number | null) => (ns === null ? '-' : (ns / 1e6).toFixed(3));

export function summaryTable(result: RunResult, dbPath: string): string {
  const header = ['server', 'method', 'n', 'ok', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'errors', 'mismatches'];
  const rows = result.summaries.map((s) => [
    s.server,
    s.method,
    String(s.n),
    String(s.nOk),
    ms(s.p50),
    ms(s.p90),
    ms(s.p99),
    ms(s.p999),
    ms(s.max),
    Object.entries(s.errors)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ') || '0',
    String(s.mismatches),
  ]);
  const check = result.selfCheck;
  return [
    `run ${result.runId} ${result.status}: ${result.samples} samples written to ${dbPath} (warm-up passes excluded below)`,
    '',
    textTable(header, rows, { align: header.map((_, i) => (i < 2 ? 'left' : 'right')) }),
    ...(result.summaries.some((s) => s.nOk > 0 && s.nOk < P999_MIN_SAMPLES) ? [P999_NOTE] : []),
    '',
    `generator: loop busy while replies were awaited p50 ${check.inFlightStallMs.p50} ms, p99 ${check.inFlightStallMs.p99} ms, ` +
      `max ${check.inFlightStallMs.max} ms (${check.inFlightStallMs.atRisk} of ${check.inFlightStallMs.calls} counted calls over 10% of their latency); ` +
      `event-loop delay p99 ${check.eventLoopDelayMs.p99} ms; CPU ${(check.cpu.utilisation * 100).toFixed(1)}% of one core; ` +
      `late replies dropped: ${result.lateReplies}; call order: ${result.order}`,
    ...result.warnings,
  ].join('\n');
}

/**
 * A --cold run's cold passes beside its warm ones, per server and method: the medians, and each
 * address's first touch after a restart summed against the same calls warm, each one's mean over
 * the warm passes (where a restart's cost lands, which the medians may not show).
 */
export function coldTable(cold: Array<ColdSummary & { server: string }>): string {
  const header = ['server', 'method', 'warm p50 ms', 'cold p50 ms', 'cold n', 'cold ok', 'cold max ms', 'first touches', 'first-touch sum ms', 'same calls warm ms', 'cold errors'];
  const rows = cold.map((c) => [
    c.server,
    c.method,
    ms(c.warmP50),
    ms(c.p50),
    String(c.n),
    String(c.nOk),
    ms(c.max),
    String(c.firstTouches),
    ms(c.firstTouchSumNs),
    ms(c.warmMeanSumNs),
    Object.entries(c.errors)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ') || '0',
  ]);
  return [
    'cold passes (after the OS page cache was dropped and the servers restarted, on fresh connections) beside the warm passes after them:',
    '',
    textTable(header, rows, { align: header.map((_, i) => (i < 2 ? 'left' : 'right')) }),
  ].join('\n');
}

export function summaryJson(result: RunResult, dbPath: string): string {
  return JSON.stringify(summaryObject(result, dbPath), null, 2);
}

/** The summary `--json` prints, as the value the outputs are given at the end. */
export function summaryObject(result: RunResult, dbPath: string) {
  return {
    runId: result.runId,
    status: result.status,
    db: dbPath,
    samples: result.samples,
    lateReplies: result.lateReplies,
    order: result.order,
    selfCheck: result.selfCheck,
    warnings: result.warnings,
    summaries: result.summaries.map((s) => ({
      server: s.server,
      method: s.method,
      n: s.n,
      ok: s.nOk,
      latencyNs: { p50: s.p50, p90: s.p90, p99: s.p99, p999: s.p999, max: s.max },
      errors: s.errors,
      mismatches: s.mismatches,
    })),
  };
}
