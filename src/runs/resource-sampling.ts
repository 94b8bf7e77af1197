/**
 * What the measured servers spend during a run (CPU, memory, disk, their metrics), sampled beside
 * it into the run's rows and summed up per request at its end (src/resources/).
 */
import type Database from 'better-sqlite3';
import { ResourceSampler, type ResourceTarget } from '../resources/sampler';
import { costTable, type CostRow } from '../resources/summary';
import { resourceSummaries, resourceWriter } from '../store/resources';
import type { RunKind } from '../store/run-record';

/**
 * Samples `targets` into the run's rows from now until `stop()`, which then gives what each spent,
 * per request of the servers it serves (`requests`: the run's calls per measured server name).
 */
export function startSampling(db: Database.Database, kind: RunKind, runId: number, targets: ResourceTarget[], everyS: number) {
  const sampler = new ResourceSampler(targets, resourceWriter(db, { runId }), { everyMs: Math.round(everyS * 1000) });
  sampler.start();
  return {
    async stop(requests: Map<string, number>): Promise<string> {
      await sampler.stop();
      const rows: CostRow[] = resourceSummaries(db, { runId }).map((s) => {
        const served = targets.find((t) => t.name === s.target)?.servers ?? [s.target];
        const n = served.reduce((sum, name) => sum + (requests.get(name) ?? 0), 0);
        return { ...s, requests: n || null };
      });
      return `what the servers spent during ${kind} run ${runId} (sampled every ${everyS} s; per request: every call of the run):\n${costTable(rows)}`;
    },
  };
}

