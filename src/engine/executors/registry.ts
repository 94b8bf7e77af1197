/**
 * Every executor, by the name a load model carries (stored with each run, so the four older ones
 * keep the names earlier databases hold). A new executor is its file and one line here.
 */
import type { Executor, PlanExecutor } from './executor';
import type { LoadModel } from '../../core/load-types';
import { constantArrivalRate } from './constant-arrival-rate';
import { rampingArrivalRate } from './ramping-arrival-rate';
import { constantVus } from './constant-vus';
import { rampingVus } from './ramping-vus';
import { perVuIterations } from './per-vu-iterations';
import { sharedIterations } from './shared-iterations';
import { hold } from './hold';
import { sequential } from './sequential';

type Registry = { [K in LoadModel['kind']]: Executor<Extract<LoadModel, { kind: K }>> };

const EXECUTORS: Registry = {
  rate: constantArrivalRate,
  stages: rampingArrivalRate,
  vus: constantVus,
  'vus-stages': rampingVus,
  'per-vu-iterations': perVuIterations,
  'shared-iterations': sharedIterations,
  hold,
};

/** The executor that runs `model`. */
export function executorFor<M extends LoadModel>(model: M): Executor<M> {
  // The registry's type ties each name to its own config; indexing by a union loses that tie.
  return EXECUTORS[model.kind] as unknown as Executor<M>;
}

/** Whether `kind` names a load executor (a stored model's kind may come from another version). */
export function isLoadModelKind(kind: string): kind is LoadModel['kind'] {
  return Object.hasOwn(EXECUTORS, kind);
}

/** Every problem with `model`, from its own executor. */
export function problemsOf(model: LoadModel): string[] {
  return executorFor(model).validate(model);
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
