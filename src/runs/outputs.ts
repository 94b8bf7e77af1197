/**
 * What a run's seconds and summary go to besides the results database (k6's `--out`, and the
 * dashboard), opened by the run session before any work: every file they write claimed, the
 * dashboard's port taken; a failure is the user's (exit 2). The command closes them whatever happens.
 */
import { Dashboard } from '../engine/outputs/dashboard/dashboard';
import { OutputSet } from '../engine/outputs/output-set';
import { createOutputs, type OutputSpec } from '../engine/outputs/registry';

export interface WatchPlan {
  /** --out NAME=ARG: where each second goes besides the database. */
  outputs: OutputSpec[];
  /** --dashboard / --dashboard-export: the live page and the saved one. */
  dashboard: { listen?: { host: string; port: number }; exportFile?: string } | undefined;
}

export async function openOutputs(plan: WatchPlan, title: string): Promise<OutputSet> {
  const set = new OutputSet(createOutputs(plan.outputs));
  if (plan.dashboard) set.outputs.push(new Dashboard({ ...plan.dashboard, title }));
  try {
    await set.open();
  } catch (err) {
    await set.close();
    throw err;
  }
  return set;
}
