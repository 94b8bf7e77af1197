/**
 * Index-bench runs in the results database: the run (kind 'index') with the chain it built to, and
 * one row per build, written when the build starts (so its resource samples have a build to name)
 * and completed when the server reached the tip.
 */
import type { FinalStatus } from '../core/run-status';
import type { ResultsStore } from './results';
import { createRun, finishRun, RUN_NUMBER, type NumberedRun, type RunRow } from './run-record';
import { resourceSummaries, resourceWriter, type ResourceSummary } from './resources';
import type { ResourceRow } from '../core/resource-row';
import type { BuildFigures } from '../core/index-builds';

export interface NewIndexRun {
  tool_version: string;
  git_commit: string | null;
  chain: unknown;
  config: unknown; // never a secret
}

export interface IndexBuildRow {
  id: number;
  run_id: number;
  server: string;
  settings_json: string;
  repeat: number;
  index_ms: number;
  cpu_s: number | null;
  peak_rss_bytes: number | null;
  read_bytes: number | null;
  write_bytes: number | null;
  datadir_bytes: number | null;
  phases_json: string;
}

export type IndexRunRow = RunRow & NumberedRun & { chain_json: string };

/** What one build took and cost. */
export type BuildEnd = BuildFigures & { phases: unknown };

export class IndexStore {
  constructor(private readonly results: ResultsStore) {}

  private get db() {
    return this.results.db;
  }

  createRun(run: NewIndexRun): number {
    return this.db.transaction(() => {
      const { runId } = createRun(this.db, { kind: 'index', tool_version: run.tool_version, git_commit: run.git_commit, config_json: JSON.stringify(run.config) }, []);
      this.db.prepare('INSERT INTO index_runs (run_id, chain_json) VALUES (?, ?)').run(runId, JSON.stringify(run.chain));
      return runId;
    })();
  }

  finishRun(runId: number, status: FinalStatus): void {
    finishRun(this.db, runId, status);
  }

  /** A build about to start; its figures come with finishBuild. */
  addBuild(runId: number, server: string, settings: Record<string, string>, repeat: number): number {
    return Number(
      this.db
        .prepare(`INSERT INTO index_builds (run_id, server, settings_json, repeat, index_ms, cpu_s, peak_rss_bytes, read_bytes, write_bytes, datadir_bytes, phases_json)
          VALUES (?, ?, ?, ?, 0, NULL, NULL, NULL, NULL, NULL, '[]')`)
        .run(runId, server, JSON.stringify(settings), repeat).lastInsertRowid,
    );
  }

  finishBuild(buildId: number, b: BuildEnd): void {
    this.db
      .prepare(`UPDATE index_builds SET index_ms = ?, cpu_s = ?, peak_rss_bytes = ?, read_bytes = ?, write_bytes = ?, datadir_bytes = ?, phases_json = ? WHERE id = ?`)
      .run(b.indexMs, b.cpuS, b.peakRssBytes, b.readBytes, b.writeBytes, b.datadirBytes, JSON.stringify(b.phases), buildId);
  }

  /** Where a build's resource samples go, and what they add up to. */
  buildSamples(runId: number, buildId: number): { write: (rows: ResourceRow[]) => void; summaries: () => ResourceSummary[] } {
    return { write: resourceWriter(this.db, { runId, buildId }), summaries: () => resourceSummaries(this.db, { runId, buildId }) };
  }

  /** The latest completed index run, with its builds in order; null when there is none. */
  latestCompleted(): { run: IndexRunRow; builds: IndexBuildRow[] } | null {
    const run = this.db
      .prepare(`SELECT r.*, ${RUN_NUMBER}, i.chain_json FROM runs r JOIN index_runs i ON i.run_id = r.id
        WHERE r.kind = 'index' AND r.status = 'completed' ORDER BY r.id DESC LIMIT 1`)
      .get() as IndexRunRow | undefined;
    if (!run) return null;
    return { run, builds: this.db.prepare('SELECT * FROM index_builds WHERE run_id = ? ORDER BY id').all(run.id) as IndexBuildRow[] };
  }
}
