/**
 * `load`'s options checked in one step, before anything is read or connected: every problem is
 * collected and reported together (one line, exit 2), as autocannon validates before it runs.
 * What comes out is the plan the engine runs: which executor with which config, and the settings
 * every executor shares. Servers, the dataset and CA files are resolved afterwards (load.ts).
 */
import { UserError } from '../core/user-error';
import type { Argv } from 'yargs';
import { CHOOSABLE, executorFor, executorOptions, executorsChosen, flagsGiven, modelFrom, problemsOf, type ExecutorArgs, type LoadModel } from '../engine/executors/registry';
import { countProblem } from '../engine/executors/executor';
import { parseMix } from '../engine/iterations/requests';
import { parseShard, shareOf } from '../core/shard';
import { parseSourceAddresses } from '../load/source-addresses';
import { parseThreshold } from '../load/thresholds';
import { parseSlo, type FindMaxOptions } from '../engine/find-max';
import { collecting, cpuOption, realtimeProblems, durationOption, regressionGateProblems, timeoutSeconds } from './validate';
import { formatDuration } from '../core/duration';
import { parseCoordinator } from '../engine/coordinator';
import { watchPlan, type WatchArgs } from './watch-options';
import type { LoadPlan } from '../runs/kinds/load';

export type { LoadPlan } from '../runs/kinds/load';

/**
 * The options that choose an executor and build its config: every registered executor's own
 * (src/engine/executors/), and --duration, the length of those whose schedule has one.
 */
export type ModelArgs = ExecutorArgs & { duration?: string };

/** The options of `load` the plan reads (yargs' parse of them). */
export type LoadPlanArgs = ModelArgs & WatchArgs & OtherLoadArgs;

interface OtherLoadArgs {
  connections?: number;
  pipeline: number;
  timeout: number;
  'max-line-bytes': number;
  mix: string;
  shard?: string;
  'start-at'?: number;
  coordinator?: string;
  'ready-timeout': string;
  samples?: boolean;
  'source-addresses'?: string;
  threshold?: string[];
  'find-max': boolean;
  slo?: string;
  'max-error-rate': number;
  dwell: string;
  warmup: string;
  'step-factor': number;
  'max-rate': number;
  'bisect-steps': number;
  cpu?: string;
  realtime?: boolean;
  interleave?: string;
  baseline?: string;
  'fail-on-regression'?: number;
}

/** The options of a --find-max search. */
export type FindMaxArgs = ModelArgs & Pick<LoadPlanArgs, 'find-max' | 'slo' | 'max-error-rate' | 'dwell' | 'warmup' | 'step-factor' | 'max-rate' | 'bisect-steps'>;

/** Declares every registered executor's options and --duration, as the registry has them. */
export function withModelOptions<T>(y: Argv<T>): Argv<T & ModelArgs> {
  let declared: Argv<T> = y;
  for (const [name, option] of executorOptions()) declared = declared.option(name, option);
  // Typed as the registry derives them from the same declarations.
  return declared.option('duration', { type: 'string', describe: durationHelp() }) as unknown as Argv<T & ModelArgs>;
}

/** --duration's help, from what each executor makes of it. */
function durationHelp(): string {
  const seconds = (ms: number) => (ms >= 120_000 && ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);
  const part = (ends: boolean, text: string) => {
    const these = CHOOSABLE.filter((e) => e.duration !== null && !!e.endsWhenDone === ends);
    const defaults = [...new Set(these.map((e) => seconds(e.duration!.defaultMs)))];
    return `${text} with ${these.map((e) => `--${e.choice.flag}`).join(', ')} (default ${defaults.join(' or ')})`;
  };
  return `${part(false, 'run length per server')}; ${part(true, 'the most it may take')}`;
}

/** Every problem with `a` at once (a UserError listing them), or the plan. */
export function loadPlan(a: LoadPlanArgs): LoadPlan {
  const problems: string[] = [];
  const take = collecting(problems);

  const findMax = findMaxOptions(a, problems, take);
  // With --find-max the search sets each step's rate and length itself.
  const chosen = a['find-max'] ? undefined : chooseModel(a, problems, take);
  const model: LoadModel = chosen?.model ?? { kind: 'rate', rate: 1 };
  const durationMs = chosen?.durationMs ?? 0;

  const mix = take(() => parseMix(a.mix));
  const shard = a.shard === undefined ? undefined : take(() => parseShard(a.shard!));
  const timeoutMs = take(() => timeoutSeconds('--timeout', a.timeout));
  if (a.connections !== undefined) problems.push(...countProblem('--connections', a.connections));
  problems.push(...countProblem('--pipeline', a.pipeline), ...countProblem('--max-line-bytes', a['max-line-bytes']));
  const sourceAddresses = a['source-addresses'] ? (take(() => parseSourceAddresses(a['source-addresses']!)) ?? []) : [];
  const startAtMs = take(() => startAt(a['start-at']));
  const coordinator = a.coordinator === undefined ? undefined : take(() => parseCoordinator(a.coordinator!));
  const readyTimeoutMs = take(() => durationOption('ready-timeout', a['ready-timeout']));
  if (a.coordinator !== undefined) {
    if (a.shard === undefined) problems.push('--coordinator: give --shard I/N too (shard 1 coordinates, the others register with it)');
    if (a['start-at'] !== undefined) problems.push('--coordinator sets the start itself: drop --start-at');
    if (a.samples) problems.push('--coordinator: --samples would send every request through the coordinator; leave it out');
    if (a['find-max']) problems.push('--coordinator: --find-max is not coordinated across shards (each step would need the whole test judged); run it on one machine');
    if (a.dashboard !== undefined || a['dashboard-export'] !== undefined) problems.push('--coordinator: --dashboard would show one shard, not the test; follow a coordinated test with --out prometheus-rw=URL (every shard labelled), or its merged summary');
  }
  // A shard sends 1/N of each step's rate, and a step is judged on the whole rate: every step would fail.
  if (a['find-max'] && shard && shard.count > 1 && a.coordinator === undefined) problems.push('--shard: --find-max judges each step on its whole rate, which one shard does not send; run the search on one machine');
  const thresholds = a.threshold ?? [];
  for (const t of thresholds) take(() => parseThreshold(t));
  const cpus = cpuOption('--cpu', a.cpu, problems);
  problems.push(...realtimeProblems(a.realtime, a['find-max']));
  const turnMs = interleaveOption(a, chosen, problems, take);
  if (a.baseline !== undefined && a.interleave === undefined) {
    problems.push('--baseline judges the servers against one turn by turn: give --interleave DURATION too (servers loaded one after another are not paired)');
  }
  problems.push(...regressionGateProblems(a.baseline, a['fail-on-regression']));
  const { outputs, dashboard } = watchPlan(a, problems);
  if (problems.length) throw new UserError(problems.join('; '));

  const executor = executorFor(model);
  // A closed model's users each wait for their own answer: one socket each unless told otherwise.
  const connections = a.connections ?? (executor.closed ? Math.max(1, executor.maxVus(model)) : 8);
  return {
    model: shard ? executor.shareOf(model, shard) : model,
    durationMs,
    findMax,
    mix: mix!,
    shard,
    connections: Math.max(1, shareOf(shard, connections)),
    testConnections: connections,
    pipeline: a.pipeline,
    timeoutMs: timeoutMs!,
    maxLineBytes: a['max-line-bytes'],
    sourceAddresses,
    startAtMs,
    coordinator,
    readyTimeoutMs: readyTimeoutMs!,
    thresholds,
    cpus,
    realtime: a.realtime || undefined,
    turnMs,
    baseline: a.baseline,
    failOnRegressionPct: a['fail-on-regression'],
    outputs,
    dashboard,
  };
}

/** Executors whose pace holds through their whole length, so that every turn of one gets the same load. */
const STEADY = CHOOSABLE.filter((e) => e.duration !== null && !e.endsWhenDone);

/** --interleave's turn length, every problem with it noted; undefined when not given or wrong. */
function interleaveOption(a: LoadPlanArgs, chosen: { model: LoadModel; durationMs: number } | undefined, problems: string[], take: Take): number | undefined {
  if (a.interleave === undefined) return undefined;
  const turnMs = take(() => durationOption('interleave', a.interleave!));
  if (turnMs !== undefined && turnMs < 1000) problems.push('--interleave must be at least 1s: each turn is stored and judged in whole seconds');
  if (a['find-max']) problems.push('--interleave: --find-max searches each server on its own; drop one of the two');
  if (a.shard !== undefined) problems.push('--interleave: not with --shard (the shards would have to agree on every turn); run it on one machine');
  const steady = chosen && STEADY.some((e) => e.kind === chosen.model.kind);
  if (chosen && !steady) {
    const flags = STEADY.map((e) => `--${e.choice.flag}`);
    problems.push(`--interleave takes turns of a steady load, alike in every turn (${flags.slice(0, -1).join(', ')} or ${flags.at(-1)}), not --${executorFor(chosen.model).choice?.flag}`);
  }
  if (chosen && steady && turnMs !== undefined && turnMs > chosen.durationMs) problems.push(`--interleave ${a.interleave} is longer than the run (--duration ${formatDuration(chosen.durationMs / 1000)}): each server would get one turn, and a verdict needs pairs of turns`);
  const model = chosen?.model;
  if (model?.kind === 'rate' && turnMs !== undefined && turnMs >= 1000 && turnMs <= chosen!.durationMs) {
    // Each turn starts the metronome again: a turn sends every tick in it, the part of one included.
    const lastMs = chosen!.durationMs % turnMs;
    const requestsIn = (ms: number) => +((model.rate * ms) / 1000).toPrecision(12);
    const uneven = [turnMs, lastMs].find((ms) => ms > 0 && !Number.isInteger(requestsIn(ms)));
    if (uneven !== undefined) {
      const last = uneven === turnMs ? '' : ` and --duration ${chosen!.durationMs / 1000}s (a last turn of ${uneven / 1000}s)`;
      problems.push(`--interleave ${a.interleave} with --rate ${model.rate}${last}: a turn would hold ${requestsIn(uneven)} requests and would send ${Math.ceil(requestsIn(uneven))}, more than the rate; choose turns that hold a whole number of requests`);
    }
  }
  return turnMs;
}

/**
 * The executor `--workload`'s arriving wallets run on, from the same options (every problem noted
 * in `problems`); undefined when none is given (held wallets only).
 */
export function arrivalModel(a: ModelArgs, problems: string[]): { model: LoadModel; durationMs: number } | undefined {
  if (flagsGiven(a).length === 0) return undefined;
  const take = collecting(problems);
  return chooseModel(a, problems, take);
}

type Take = <T>(parse: () => T) => T | undefined;

/** The executor the options name and its config, checked by the executor itself; undefined when they name none. */
function chooseModel(a: ModelArgs, problems: string[], take: Take): { model: LoadModel; durationMs: number } | undefined {
  const chosen = executorsChosen(a);
  if (chosen.length !== 1) {
    const given = flagsGiven(a);
    const usages = CHOOSABLE.map((e) => e.choice.usage);
    problems.push(`give exactly one load model: ${usages.slice(0, -1).join(', ')}, or ${usages.at(-1)}` + (given.length ? ` (got --${given.join(', --')})` : ''));
    return undefined;
  }
  const [executor] = chosen;
  const model = modelFrom(executor, a, problems);
  problems.push(...problemsOf(model));
  if (executor.duration === null) {
    if (a.duration !== undefined) problems.push(`--duration does not apply to --${executor.choice.flag}: the stages set the length`);
    return { model, durationMs: 0 };
  }
  const durationMs = a.duration === undefined ? executor.duration.defaultMs : take(() => durationOption('duration', a.duration!));
  if (durationMs !== undefined && !(durationMs > 0)) problems.push('--duration must be above 0');
  return { model, durationMs: durationMs ?? 0 };
}

/** --find-max's search, every problem with its options noted in `problems`; undefined without --find-max. */
export function findMaxOptions(a: FindMaxArgs, problems: string[], take: Take = collecting(problems), sloSubjects: readonly string[] = []): FindMaxOptions | undefined {
  if (!a['find-max']) {
    if (a.slo !== undefined) problems.push('--slo applies to --find-max only');
    return undefined;
  }
  const given = flagsGiven(a);
  if (given.length) problems.push(`--find-max chooses the rates itself; drop --${given.join(', --')}`);
  if (!a.slo) problems.push('--find-max needs --slo, e.g. --slo "p99<100ms"');
  if (!(a['max-error-rate'] >= 0 && a['max-error-rate'] <= 1)) problems.push(`--max-error-rate must be 0..1, got ${a['max-error-rate']}`);
  if (!(a['step-factor'] > 1)) problems.push(`--step-factor must be above 1, got ${a['step-factor']}`);
  if (!(a['max-rate'] > 0)) problems.push(`--max-rate must be a number > 0, got ${a['max-rate']}`);
  const dwellMs = take(() => durationOption('dwell', a.dwell));
  if (dwellMs !== undefined && dwellMs < 2000) problems.push('--dwell must be at least 2s: a step is judged on whole seconds');
  const warmupMs = take(() => durationOption('warmup', a.warmup));
  const slo = a.slo ? take(() => parseSlo(a.slo!, sloSubjects)) : undefined;
  if (!slo || dwellMs === undefined || warmupMs === undefined) return undefined;
  return {
    slo,
    maxErrorRate: a['max-error-rate'],
    dwellMs,
    warmupMs,
    startRate: a['start-rate'] > 0 ? a['start-rate'] : 10,
    factor: a['step-factor'],
    maxRate: a['max-rate'],
    bisectSteps: Math.max(0, Math.round(a['bisect-steps'])),
  };
}

function startAt(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return undefined;
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(ms) || ms < Date.now() - 1000) throw new UserError(`--start-at ${seconds} is in the past (now ${Math.floor(Date.now() / 1000)})`);
  if (ms > Date.now() + 3_600_000) throw new UserError(`--start-at ${seconds} is more than an hour away`);
  return ms;
}
