/**
 * Load runs in the results database: the run record (run-record.ts) with its load details, and per
 * server and second one interval row plus one cell per (method, outcome) with its histograms.
 * Intervals are written as they complete, so an interrupted run keeps every finished second.
 */
import type { ObservedReplies } from '../core/observed-replies';
import type { ResultsStore } from './results';
import { createRun, finishRun, resolveRun, RUN_NUMBER, serversOf, setServerInfo, setServerReplies, type NumberedRun, type RunRow, type ServerRow } from './run-record';
import type { AnyIntervalRecord, IntervalRecord, LoadOutcome, StoredLoadModel } from '../core/load-types';
import type { MethodName } from '../core/methods';

export type LoadRunStatus = 'running' | 'interrupted' | 'completed' | 'failed' | 'aborted';

/** A load run: its row of `runs` with its detail row. */
export interface LoadRunRow extends Omit<RunRow, 'status' | 'node_version'>, NumberedRun {
  status: LoadRunStatus;
  node_version: string;
  model_json: string;
  /** The executor's own words for model_json (schema 10); null for runs written before. */
  model_text: string | null;
  shard: string | null;
  merged_from: string | null;
  generator_bound: number;
  generator_json: string | null;
  thresholds_json: string | null;
  find_max_json: string | null;
}

export interface LoadServerRow extends ServerRow {
  /** The server's outcomes and whether it stopped answering (schema 9); absent or null before. */
  outcome_json?: string | null;
}

export interface NewLoadRun {
  tool_version: string;
  git_commit: string | null;
  config: unknown; // never a secret
  model: StoredLoadModel;
  /** How the model paces, as its executor describes it. */
  model_text: string;
  dataset_path: string | null;
  dataset_hash: string | null;
  shard: string | null;
  merged_from?: string[] | null;
}

export interface LoadRunEnd {
  status: LoadRunStatus;
  generatorBound: boolean;
  generator?: unknown;
  thresholds?: unknown;
  findMax?: unknown;
}

const LOAD_RUNS = `SELECT r.*, ${RUN_NUMBER}, l.* FROM runs r JOIN load_runs l ON l.run_id = r.id WHERE r.kind = 'load'`;

export class LoadStore {
  constructor(private readonly results: ResultsStore) {}

  private get db() {
    return this.results.db;
  }

  createRun(run: NewLoadRun, servers: Array<Pick<LoadServerRow, 'name' | 'profile' | 'url' | 'software' | 'protocol'>>): { runId: number; serverIds: Map<string, number> } {
    return this.db.transaction(() => {
      const { runId, serverIds } = createRun(
        this.db,
        { kind: 'load', tool_version: run.tool_version, git_commit: run.git_commit, config_json: JSON.stringify(run.config), dataset_path: run.dataset_path, dataset_hash: run.dataset_hash },
        servers,
      );
      this.db
        .prepare('INSERT INTO load_runs (run_id, model_json, model_text, shard, merged_from) VALUES (?, ?, ?, ?, ?)')
        .run(runId, JSON.stringify(run.model), run.model_text, run.shard, run.merged_from ? JSON.stringify(run.merged_from) : null);
      return { runId, serverIds: new Map(servers.map((s, i) => [s.name, serverIds[i]])) };
    })();
  }

  /** What a server said of itself once connected. */
  setServerInfo(serverId: number, software: string | null, protocol: string | null, replies: ObservedReplies | null = null): void {
    this.db.transaction(() => {
      setServerInfo(this.db, serverId, { software, protocol });
      if (replies) setServerReplies(this.db, serverId, replies);
    })();
  }

  /** One finished second of one server, with its cells, in one transaction. */
  addInterval(runId: number, serverId: number, rec: AnyIntervalRecord, step: number | null = null): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT OR REPLACE INTO load_intervals (run_id, server_id, idx, start_ms, length_ms, target_rate, vus, sent, dropped, in_flight, lag_hist, loop_delay_p99_us, step)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(runId, serverId, rec.index, rec.startMs, rec.lengthMs, rec.targetRate, rec.vus, rec.sent, rec.dropped, rec.inFlight, rec.lag, rec.loopDelayP99Us, step);
      const cell = this.db.prepare(
        `INSERT OR REPLACE INTO load_cells (run_id, server_id, idx, method, outcome, count, bytes, latency_hist, service_hist)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const c of rec.cells) cell.run(runId, serverId, rec.index, c.method, c.outcome, c.count, c.bytes, c.latency, c.service);
    })();
  }

  addSamples(runId: number, serverId: number, rows: Array<{ intendedUs: number; method: string; outcome: string; latencyUs: number | null; serviceUs: number | null }>): void {
    const add = this.db.prepare('INSERT INTO load_samples (run_id, server_id, intended_us, method, outcome, latency_us, service_us) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const r of rows) add.run(runId, serverId, r.intendedUs, r.method, r.outcome, r.latencyUs, r.serviceUs);
    })();
  }

  /** What became of every request sent to one server of a run, as its summary counted it. */
  setServerOutcome(serverId: number, outcome: unknown): void {
    this.db.prepare('UPDATE run_servers SET outcome_json = ? WHERE id = ?').run(JSON.stringify(outcome), serverId);
  }

  finishRun(runId: number, end: LoadRunEnd): void {
    this.db.transaction(() => {
      finishRun(this.db, runId, end.status);
      this.db
        .prepare('UPDATE load_runs SET generator_bound = ?, generator_json = ?, thresholds_json = ?, find_max_json = ? WHERE run_id = ?')
        .run(
          end.generatorBound ? 1 : 0,
          end.generator === undefined ? null : JSON.stringify(end.generator),
          end.thresholds === undefined ? null : JSON.stringify(end.thresholds),
          end.findMax === undefined ? null : JSON.stringify(end.findMax),
          runId,
        );
    })();
  }

  /** A merged test ran when its shards ran, not when they were merged. */
  setSpan(runId: number, startedAt: string, finishedAt: string | null): void {
    this.db.prepare('UPDATE runs SET started_at = ?, finished_at = coalesce(?, finished_at) WHERE id = ?').run(startedAt, finishedAt, runId);
  }

  runs(): LoadRunRow[] {
    return this.db.prepare(`${LOAD_RUNS} ORDER BY r.id`).all() as LoadRunRow[];
  }

  run(id: number): LoadRunRow | undefined {
    return this.db.prepare(`${LOAD_RUNS} AND r.id = ?`).get(id) as LoadRunRow | undefined;
  }

  /** The load run a user's number names (its id, or its id before schema 8). */
  resolve(n: number): number | undefined {
    return resolveRun(this.db, 'load', n);
  }

  servers(runId: number): LoadServerRow[] {
    return serversOf(this.db, runId);
  }

  /** Every interval of a run's server, in order, with its cells, streamed (memory stays flat). */
  *intervals(runId: number, serverId: number): Generator<IntervalRecord & { step: number | null }> {
    const server = (this.db.prepare('SELECT name FROM run_servers WHERE id = ?').get(serverId) as { name: string } | undefined)?.name ?? String(serverId);
    const cellsOf = this.db.prepare('SELECT * FROM load_cells WHERE run_id = ? AND server_id = ? AND idx = ? ORDER BY method, outcome');
    const rows = this.db.prepare('SELECT * FROM load_intervals WHERE run_id = ? AND server_id = ? ORDER BY idx').all(runId, serverId) as Array<{
      idx: number;
      start_ms: number;
      length_ms: number;
      target_rate: number | null;
      vus: number | null;
      sent: number;
      dropped: number;
      in_flight: number;
      lag_hist: string | null;
      loop_delay_p99_us: number;
      step: number | null;
    }>;
    for (const r of rows) {
      const cells = (cellsOf.all(runId, serverId, r.idx) as Array<{ method: string; outcome: string; count: number; bytes: number; latency_hist: string | null; service_hist: string | null }>).map(
        (c) => ({ method: c.method as MethodName, outcome: c.outcome as LoadOutcome, count: c.count, bytes: c.bytes, latency: c.latency_hist, service: c.service_hist }),
      );
      yield {
        server,
        index: r.idx,
        startMs: r.start_ms,
        lengthMs: r.length_ms,
        targetRate: r.target_rate,
        vus: r.vus,
        sent: r.sent,
        dropped: r.dropped,
        inFlight: r.in_flight,
        lag: r.lag_hist,
        loopDelayP99Us: r.loop_delay_p99_us,
        cells,
        step: r.step,
      };
    }
  }
}
