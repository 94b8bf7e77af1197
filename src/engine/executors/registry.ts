/**
 * Every executor, by the name a load model carries (stored with each run, so the four older ones
 * keep the names earlier databases hold). A new executor is its file and one line here.
 */
import type { Executor } from './executor';
import type { LoadModel } from '../../core/load-types';
import { constantArrivalRate } from './constant-arrival-rate';
import { rampingArrivalRate } from './ramping-arrival-rate';
import { constantVus } from './constant-vus';
import { rampingVus } from './ramping-vus';
import { perVuIterations } from './per-vu-iterations';
import { sharedIterations } from './shared-iterations';
import { hold } from './hold';

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

/** Every problem with `model`, from its own executor. */
export function problemsOf(model: LoadModel): string[] {
  return executorFor(model).validate(model);
}
