/**
 * What the measured servers spend during a run (CPU, memory, disk, their metrics), sampled beside
 * it into the run's rows and summed up per request at its end (src/resources/).
 */
import type Database from 'better-sqlite3';
import type { ResourceRow, ResourceTarget } from '../resources/sampler';
import { SamplerThread } from '../resources/sampler-thread';
import { costTable, type CostRow } from '../resources/summary';
import { resourceSummaries, resourceWriter } from '../store/resources';
import type { RunKind } from '../store/run-record';

/**
 * Sampling of `targets`, its thread made now (await `ready` before the run, so the first readings
 * are at its start); start(runId) samples into the run's rows until stop(), which then gives what
 * each spent, per request of the servers it serves (`requests`: the run's calls per server name).
 */
export function prepareSampling(db: Database.Database, kind: RunKind, targets: ResourceTarget[], everyS: number) {
  const sampler = new SamplerThread(targets, { everyMs: Math.round(everyS * 1000) });
  let runId: number | undefined;
  return {
    ready: sampler.ready,
    /** Samples into run `id`'s rows, each batch of readings also to `also` (a run that judges them as they come). */
    start(id: number, also?: (rows: ResourceRow[]) => void): void {
      runId = id;
      const write = resourceWriter(db, { runId });
      sampler.start(also ? (rows) => (write(rows), also(rows)) : write);
    },
    async stop(requests: Map<string, number>): Promise<string | undefined> {
      await sampler.stop();
      if (runId === undefined) return undefined;
      const rows: CostRow[] = resourceSummaries(db, { runId }).map((s) => {
        const served = targets.find((t) => t.name === s.target)?.servers ?? [s.target];
        const n = served.reduce((sum, name) => sum + (requests.get(name) ?? 0), 0);
        return { ...s, requests: n || null };
      });
      // A run that counts no calls per server (a wallet load counts syncs) has no per-request figure to explain.
      const perRequest = rows.some((r) => r.requests !== null) ? '; per request: every call of the run' : '; no calls counted per server, so nothing per request';
      return `what the servers spent during ${kind} run ${runId} (sampled every ${everyS} s${perRequest}):\n${costTable(rows)}`;
    },
  };
}
