/**
 * `load --interleave DURATION [--baseline NAME [--fail-on-regression PCT]]`, wired: its checks
 * that need the servers' names, and at the end the text of an A/B run's verdicts, read back from
 * the run's stored seconds as `report` reads them (one computation for both: src/verdicts/load.ts).
 */
import { UserError } from '../core/user-error';
import { textTable } from '../core/text-table';
import { formatDuration } from '../core/duration';
import type { AbVerdicts } from '../verdicts/comparison';
import { MIN_ROUNDS } from '../verdicts/load';
import { pairedLoadNote, pairedLoadTable } from '../report/compare';
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

/** An interleaved A/B run's verdicts (src/verdicts/load.ts) as its summary prints them: the turn-by-turn table and what it means. */
export function loadAbText(ab: AbVerdicts): string {
  const t = pairedLoadTable(ab.comparison);
  return [`A/B verdicts against ${ab.baseline} (B vs A, turn by turn):`, '', textTable(t.head, t.rows, { align: t.align }), '', pairedLoadNote(ab.comparison)].join('\n');
}
