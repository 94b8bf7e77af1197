/**
 * Checks every command shares: of numbers, of values given, and the checks its options end with.
 *
 * yargs turns `--passes abc` into NaN, so a message built from the parsed value says "got NaN";
 * `numbersAsTyped` refuses it with the text the user typed instead. Timers hold at most 2^31-1 ms:
 * beyond, Node fires them after 1 ms, so a huge --timeout would silently become no timeout at all.
 */
import type { Argv } from 'yargs';
import { UserError } from '../core/user-error';
import { givenOnce } from './declared-options';
import { MAX_TIMER_MS, MAX_TIMER_TEXT } from '../core/timer-limit';
import { planProblemsOf, type PlanModel } from '../engine/executors/registry';
import { cpuSet } from '../core/cpu-set';
import { realtimeProblem } from '../core/realtime';

/**
 * What every command's options end with: each mistake refused as one line naming the option (a
 * repeated single value, a number or a value not given, an unknown option), never a stack trace.
 */
export function refusingMistakes<T>(y: Argv<T>, argv: readonly string[]): Argv<T> {
  return y
    .check(givenOnce(y))
    .check(numbersAsTyped(y, argv))
    .check(stringsGiven(y))
    .strict()
    .fail((msg, err) => {
      throw err ?? new UserError(msg);
    })
    .help();
}

/** A yargs `.check()` refusing a number option that is not a finite number, quoting what was typed. */
export function numbersAsTyped(y: object, argv: readonly string[]): (parsed: Record<string, unknown>) => true {
  return (parsed) => {
    const declared = (y as { getOptions(): { number: string[]; alias: Record<string, string[]> } }).getOptions();
    for (const key of declared.number) {
      const values = ([] as unknown[]).concat(parsed[key]);
      if (values.every((v) => v === undefined || (typeof v === 'number' && Number.isFinite(v)))) continue;
      const typed = typedText(argv, [key, ...(declared.alias[key] ?? [])]);
      throw new UserError(`--${key} must be a number, got ${JSON.stringify(typed ?? String(values.find((v) => !Number.isFinite(v as number))))}`);
    }
    return true;
  };
}

/** String options whose value may be left out: the flag alone means its default (`--dashboard`: the default port). */
const BARE_FLAGS = new Set(['dashboard']);

/**
 * A yargs `.check()` refusing a string option given with nothing after it (`--ca ""`, or `--ca` at
 * the end): taken as unset, it would silently fall back to a default (no CA, the default database).
 */
export function stringsGiven(y: object): (parsed: Record<string, unknown>) => true {
  return (parsed) => {
    const declared = (y as { getOptions(): { string: string[] } }).getOptions();
    for (const key of declared.string) {
      if (BARE_FLAGS.has(key)) continue;
      if (([] as unknown[]).concat(parsed[key]).some((v) => v === '')) throw new UserError(`--${key} needs a value, got ""`);
    }
    return true;
  };
}

/** Which of `names` the command line gives, as `--name` or `--name=VALUE`. */
export function optionsOnCommandLine(names: readonly string[], argv: readonly string[]): string[] {
  return names.filter((f) => argv.some((t) => t === `--${f}` || t.startsWith(`--${f}=`)));
}

/** The text after the last `--name VALUE` or `--name=VALUE` of any of the names. */
export function typedText(argv: readonly string[], names: readonly string[]): string | undefined {
  let typed: string | undefined;
  argv.forEach((token, i) => {
    for (const name of names) {
      if (token === `--${name}`) typed = argv[i + 1] ?? '';
      else if (token.startsWith(`--${name}=`)) typed = token.slice(name.length + 3);
    }
  });
  return typed;
}

/** A timeout in seconds as milliseconds a timer can hold. */
export function timeoutSeconds(flag: string, seconds: number): number {
  if (!(seconds > 0)) throw new UserError(`${flag} must be a positive number of seconds, got ${seconds}`);
  const ms = Math.round(seconds * 1000);
  if (ms > MAX_TIMER_MS) throw new UserError(`${flag} ${seconds} is longer than a timer can wait: at most ${MAX_TIMER_TEXT}`);
  return Math.max(1, ms);
}

// A command's durations and problems are checked as an executor checks its own options (src/engine/
// cannot import the CLI).
export { durationOption } from '../core/timer-limit';
export { collecting } from '../core/user-error';

/** `plan` if its executor can run it; else every problem with it, on one line. */
export function checkedPlan<M extends PlanModel>(plan: M): M {
  const problems = planProblemsOf(plan);
  if (problems.length) throw new UserError(problems.join('; '));
  return plan;
}

/** A CPU set option (`--cpu`, `--cpus`): its CPUs, its problems noted; undefined when not given or wrong. */
export function cpuOption(option: string, text: string | undefined, problems: string[]): number[] | undefined {
  if (text === undefined) return undefined;
  const { cpus, problems: found } = cpuSet(option, text);
  problems.push(...found);
  return cpus;
}

/** `--realtime`: whether this process may be made real-time here, and not for a search that drives the generator to its limit. */
export function realtimeProblems(realtime: boolean | undefined, findMax: boolean | undefined): string[] {
  if (!realtime) return [];
  const problems: string[] = [];
  // A generator kept busy (a search's last steps) would at real-time priority take its CPUs from the servers it measures.
  if (findMax) problems.push('--realtime: not with --find-max, whose steps drive the generator to its limit, where real-time priority would take its CPU from the servers');
  const cannot = realtimeProblem('--realtime');
  if (cannot) problems.push(cannot);
  return problems;
}

/** `--fail-on-regression PCT`: a percent, and only with a --baseline to judge against. */
export function regressionGateProblems(baseline: string | undefined, failOn: number | undefined): string[] {
  const problems: string[] = [];
  if (failOn !== undefined && baseline === undefined) problems.push('--fail-on-regression judges verdicts against --baseline: give one');
  if (failOn !== undefined && !(failOn >= 0 && Number.isFinite(failOn))) problems.push(`--fail-on-regression must be a percent >= 0, got ${failOn}`);
  return problems;
}

/** `--baseline NAME` (an A/B run, bench or load): one of the servers measured, and at least one other. */
export function baselineProblems(baseline: string | undefined, names: readonly string[]): string[] {
  const problems: string[] = [];
  if (baseline !== undefined && !names.includes(baseline)) problems.push(`--baseline: no server named ${baseline} is measured (${names.join(', ')})`);
  if (baseline !== undefined && names.length < 2) problems.push('--baseline judges the other servers against one: measure at least two');
  return problems;
}
