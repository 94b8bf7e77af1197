/**
 * What a run session hands back when a run has ended: typed, the same shape for every run kind
 * (its id, status, each server's answering, thresholds, regressions, the JSON `--json` prints and
 * the outputs get), with what is particular to the kind in `detail` for its printer. The exit
 * code is the session's (exit-code.ts); the printer only formats.
 */
import type { FinalStatus } from '../core/run-status';
import type { Answering } from '../core/answering';
import type { RunKind } from '../store/run-record';
import type { ThresholdResult } from '../load/thresholds';

export interface RunOutcome<D = unknown> {
  kind: RunKind;
  /** The run's number in its database (null: a part of a test that keeps none). */
  runId: number | null;
  db: string | null;
  status: FinalStatus;
  /** Each server: answered how much of what it was given; said first when it answered nothing or stopped. */
  answering: Answering[];
  /** Thresholds judged on this run (load); empty for kinds that have none. */
  thresholds: ThresholdResult[];
  /** A/B verdicts beyond --fail-on-regression, one line each. */
  regressed: string[];
  /** What --json prints, --summary-export writes and the outputs get at the end. */
  json: Record<string, unknown>;
  detail: D;
}
