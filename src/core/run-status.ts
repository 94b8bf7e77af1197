/**
 * How a run ended, one rule for every run kind (bench, wallet bench, load, wallet load, index
 * builds) and for the shards of a test put back together: the run session applies it when a run
 * finishes, and the merge when it reads shards. A run still `running` in a database is one whose
 * process died before it could finish it (SIGKILL, a power cut).
 */
export const RUN_STATUSES = ['running', 'interrupted', 'completed', 'failed', 'aborted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** What a finished run can be. */
export type FinalStatus = Exclude<RunStatus, 'running'>;

/** What the run's kind saw of its ending: the facts the rule reads. */
export interface RunEnding {
  /** The run could not go on: a database refused a write, an output failed, a unit threw. */
  failed: boolean;
  /** Ended on purpose before its plan was done: a threshold's abortOnFail, a coordinated test called off. */
  aborted: boolean;
  /** A stop was asked for (a signal, or the coordinator's stop). */
  stopped: boolean;
  /** Whether every unit of work the plan held had its outcome when it ended. */
  planDone: boolean;
}

/**
 * failed, before aborted, before interrupted: what went most wrong names the run. A stop that came
 * once the plan was done (while the summary was written) leaves it completed: nothing is missing.
 */
export function statusOf(e: RunEnding): FinalStatus {
  if (e.failed) return 'failed';
  if (e.aborted) return 'aborted';
  if (e.stopped && !e.planDone) return 'interrupted';
  return 'completed';
}

const WORST_FIRST: readonly FinalStatus[] = ['failed', 'aborted', 'interrupted', 'completed'];

/**
 * The status of a test made of parts (the shards of one test): the worst of theirs, by the same
 * order as `statusOf`. A part still `running` never finished: the whole is interrupted.
 */
export function worstStatus(statuses: Iterable<RunStatus>): FinalStatus {
  const seen = new Set<FinalStatus>([...statuses].map((s) => (s === 'running' ? 'interrupted' : s)));
  return WORST_FIRST.find((s) => seen.has(s)) ?? 'completed';
}

/** Load runs whose seconds are final, which a report or a comparison reads: a running run may still be written; a failed one broke off. */
export const FINISHED_LOAD_STATUSES: readonly string[] = ['completed', 'interrupted', 'aborted'];
