/**
 * `load --interleave DURATION [--baseline NAME [--fail-on-regression PCT]]`, wired: its checks
 * that need the servers' names, and at the end the verdicts of an A/B run read back from the run's
 * stored seconds, as `report` reads them (one computation for both: src/report/compare.ts).
 */
import { UserError } from '../core/user-error';
import { textTable } from '../core/text-table';
import { formatDuration } from '../core/duration';
import { verdictText } from '../verdicts/verdict';
import type { ResultsStore } from '../store/results';
import { ResultsReader } from '../store/read';
import { readLoadRun } from '../report/load-read';
import { loadAbComparison, MIN_ROUNDS, pairedLoadNote, pairedLoadTable, regressions, type LoadPairedRow } from '../report/compare';
import { baselineProblems } from './validate';
import type { LoadPlan } from './load-plan';

/**
 * The plan's turns and baseline against the servers it will load: a UserError before anything is
 * contacted; a warning when the run cannot have rounds enough for a verdict.
 */
export function checkTurns(plan: Pick<LoadPlan, 'turnMs' | 'baseline' | 'durationMs'>, names: readonly string[]): void {
  const problems = baselineProblems(plan.baseline, names);
  if (plan.turnMs !== undefined && names.length < 2) problems.push(`--interleave makes servers take turns: load at least two (got ${names.join(', ')})`);
  if (problems.length) throw new UserError(problems.join('; '));
  const rounds = plan.turnMs === undefined ? 0 : Math.ceil(plan.durationMs / plan.turnMs);
  if (plan.baseline !== undefined && rounds < MIN_ROUNDS) {
    process.stderr.write(
      `electrum-bench: warning: --baseline: ${rounds} rounds (--duration ${formatDuration(plan.durationMs / 1000)} in turns of ${formatDuration(plan.turnMs! / 1000)}) give no verdict, which needs ${MIN_ROUNDS}: lengthen --duration or shorten --interleave\n`,
    );
  }
}

/** What an interleaved run records of its turns in its config (the report and the verdicts read it back: src/core/ab-setup.ts). */
export function turnsConfig(plan: Pick<LoadPlan, 'turnMs' | 'baseline'>): Record<string, unknown> {
  if (plan.turnMs === undefined) return {};
  return { turnMs: plan.turnMs, ...(plan.baseline !== undefined ? { baseline: plan.baseline } : {}) };
}

/** The line an interleaved run's summary starts with. */
export function turnsLine(turnMs: number, totalMs: number, servers: readonly string[]): string {
  const rounds = Math.ceil(totalMs / turnMs);
  return `in turns of ${formatDuration(turnMs / 1000)}, one server at a time (${servers.join(' ')}, then ${[...servers].reverse().join(' ')}, …): each server loaded ${formatDuration(totalMs / 1000)} in ${rounds} turns`;
}

export interface LoadAbVerdicts {
  text: string;
  /** Each judged server's rows, as stored with it. */
  byServer: Map<string, LoadPairedRow[]>;
  /** The rows beyond --fail-on-regression, as one line each. */
  regressed: string[];
}

/** An A/B run's verdicts, read back from what `runId` stored; undefined for a run without a baseline. */
export function loadAbVerdicts(results: ResultsStore, runId: number, failOnPct: number | undefined): LoadAbVerdicts | undefined {
  const reader = new ResultsReader(results);
  const run = reader.load.run(runId);
  if (!run) return undefined;
  const report = readLoadRun(reader, run, 'named');
  const c = loadAbComparison(report);
  if (!c?.loadPaired) return undefined;
  const t = pairedLoadTable(c);
  const byServer = new Map<string, LoadPairedRow[]>();
  for (const row of c.loadPaired.rows) byServer.set(row.judged, [...(byServer.get(row.judged) ?? []), row]);
  return {
    text: [`A/B verdicts against ${report.baseline} (B vs A, turn by turn):`, '', textTable(t.head, t.rows, { align: t.align }), '', pairedLoadNote(c)].join('\n'),
    byServer,
    regressed: failOnPct === undefined ? [] : regressions(c, failOnPct).map((r) => `${r.what} ${verdictText(r.verdict)}`),
  };
}
