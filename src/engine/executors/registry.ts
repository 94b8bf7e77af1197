/**
 * Every load executor. Each config carries its executor's `kind`, stored with each run (the four
 * older ones keep the names earlier databases hold). The order is the one `load --help` lists their
 * options in. A new executor is its file and one line here: its config joins `LoadModel` and its
 * options join `load`'s.
 */
import type { Executor, PlanExecutor } from './executor';
import type { Choice, ModelOption, ModelOptions, OptionValues } from './options';
import { constantArrivalRate } from './constant-arrival-rate';
import { rampingArrivalRate } from './ramping-arrival-rate';
import { constantVus } from './constant-vus';
import { rampingVus } from './ramping-vus';
import { sharedIterations } from './shared-iterations';
import { perVuIterations } from './per-vu-iterations';
import { hold } from './hold';
import { poissonArrivalRate } from './poisson-arrival-rate';
import { sequential } from './sequential';

const EXECUTORS = [
  constantArrivalRate,
  rampingArrivalRate,
  constantVus,
  rampingVus,
  sharedIterations,
  perVuIterations,
  hold,
  poissonArrivalRate,
] as const;

type Registered = (typeof EXECUTORS)[number];
type ConfigOf<E> = E extends Executor<infer M, infer _O> ? M : never;
type OptionsOf<E> = E extends Executor<infer _M, infer O> ? O : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** How load is paced: one of the registered executors' configs, told apart by `kind`. */
export type LoadModel = ConfigOf<Registered>;
/** What yargs gives for every option of every registered executor. */
export type ExecutorArgs = Intersection<OptionValues<OptionsOf<Registered>>>;

type AnyExecutor = Executor<LoadModel, ModelOptions>;
type Chosen = AnyExecutor & { choice: Choice<LoadModel, ModelOptions> };

const BY_KIND = new Map<string, AnyExecutor>(EXECUTORS.map((e) => [e.kind, e as unknown as AnyExecutor]));
if (BY_KIND.size !== EXECUTORS.length) throw new Error('two load executors share a kind');

/** The executor that runs `model`. */
export function executorFor<M extends LoadModel>(model: M): Executor<M> {
  // The registry holds each executor for its own config; looking one up by a union's kind loses that tie.
  return BY_KIND.get(model.kind) as unknown as Executor<M>;
}

/** Whether `kind` names a load executor (a stored model's kind may come from another version). */
export function isLoadModelKind(kind: string): kind is LoadModel['kind'] {
  return BY_KIND.has(kind);
}

/** Every problem with `model`, from its own executor. */
export function problemsOf(model: LoadModel): string[] {
  return executorFor(model).validate(model);
}

/** The executors `load`'s options choose from, in the registry's order. */
export const CHOOSABLE: readonly Chosen[] = [...BY_KIND.values()].filter((e): e is Chosen => e.choice !== undefined);

/** Every option of every choosable executor, once each (one several read is declared alike by each). */
export function executorOptions(): Array<[string, ModelOption]> {
  const declared = new Map<string, ModelOption>();
  for (const { name, choice } of CHOOSABLE) {
    for (const [option, declaration] of Object.entries(choice.options)) {
      const earlier = declared.get(option);
      if (earlier && JSON.stringify(earlier) !== JSON.stringify(declaration)) throw new Error(`--${option} is declared differently by ${name} and another executor`);
      declared.set(option, declaration);
    }
  }
  return [...declared];
}

/** The executors' flags given in `args`, in the registry's order. */
export function flagsGiven(args: ExecutorArgs): string[] {
  return CHOOSABLE.map((e) => e.choice.flag).filter((flag) => (args as Record<string, unknown>)[flag] !== undefined);
}

/**
 * The executors the flags given choose: a flag that another chosen executor reads among its
 * options chooses nothing itself (`--vus N --iterations K` is shared-iterations with N users).
 */
export function executorsChosen(args: ExecutorArgs): Chosen[] {
  const given = flagsGiven(args);
  const named = CHOOSABLE.filter((e) => given.includes(e.choice.flag));
  return named.filter((e) => !named.some((other) => other !== e && Object.hasOwn(other.choice.options, e.choice.flag)));
}

/** The config `executor` builds from `args` (a problem parsing an option noted in `problems`). */
export function modelFrom(executor: Chosen, args: ExecutorArgs, problems: string[]): LoadModel {
  return executor.choice.build(args as unknown as OptionValues<ModelOptions>, problems);
}

/**
 * Plan executors, in a section of their own rather than in LoadModel: no load run can choose one
 * (they have no duration, rate or shard share to give the load runner), and a load model stored
 * with a run must stay one the load report knows. Their configs are read off this table, so a new
 * one is still its file and one line here.
 */
const PLAN_EXECUTORS = {
  sequential,
};

type PlanExecutors = typeof PLAN_EXECUTORS;
/** Every plan executor's config, each carrying its executor's name as its kind. */
export type PlanModel = { [K in keyof PlanExecutors]: PlanExecutors[K] extends PlanExecutor<infer C> ? C & { kind: K } : never }[keyof PlanExecutors];

/** The executor that runs `plan`. */
export function planExecutorFor<M extends PlanModel>(plan: M): PlanExecutor<M> {
  return PLAN_EXECUTORS[plan.kind] as unknown as PlanExecutor<M>;
}

/** Every problem with `plan`, from its own executor. */
export function planProblemsOf(plan: PlanModel): string[] {
  return planExecutorFor(plan).validate(plan);
}
