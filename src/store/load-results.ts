/**
 * Load runs in the results database (schema migration 3): one row per run, its servers, and per
 * server and second one interval row plus one cell per (method, outcome) with its histograms.
 * Intervals are written as they complete, so an interrupted run keeps every finished second.
 */
import { hostInfo } from '../core/host-info';
import type { ResultsStore } from './results';
import type { IntervalRecord, LoadModel, LoadOutcome } from '../core/load-types';
import type { MethodName } from '../core/methods';

export type LoadRunStatus = 'running' | 'interrupted' | 'completed' | 'failed' | 'aborted';

export interface LoadRunRow {
  id: number;
  started_at: string;
  finished_at: string | null;
  status: LoadRunStatus;
  tool_version: string;
  git_commit: string | null;
  node_version: string;
  host_json: string;
  config_json: string;
  model_json: string;
  dataset_path: string | null;
  dataset_hash: string | null;
  shard: string | null;
  merged_from: string | null;
  generator_bound: number;
  generator_json: string | null;
  thresholds_json: string | null;
  find_max_json: string | null;
}

export interface LoadServerRow {
  id: number;
  run_id: number;
  name: string;
  profile: string;
  url: string;
  software: string | null;
  protocol: string | null;
}

export interface NewLoadRun {
  tool_version: string;
  git_commit: string | null;
  config: unknown; // never a secret
  model: LoadModel;
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

export class LoadStore {
  constructor(private readonly results: ResultsStore) {}

  private get db() {
    return this.results.db;
  }

  createRun(run: NewLoadRun, servers: Array<Omit<LoadServerRow, 'id' | 'run_id'>>): { runId: number; serverIds: Map<string, number> } {
    return this.db.transaction(() => {
      const info = this.db
        .prepare(
          `INSERT INTO load_runs (started_at, status, tool_version, git_commit, node_version, host_json, config_json, model_json,
             dataset_path, dataset_hash, shard, merged_from)
           VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          new Date().toISOString(),
          run.tool_version,
          run.git_commit,
          process.version,
          JSON.stringify(hostInfo()),
          JSON.stringify(run.config),
          JSON.stringify(run.model),
          run.dataset_path,
          run.dataset_hash,
          run.shard,
          run.merged_from ? JSON.stringify(run.merged_from) : null,
        );
      const runId = Number(info.lastInsertRowid);
      const add = this.db.prepare('INSERT INTO load_servers (run_id, name, profile, url, software, protocol) VALUES (?, ?, ?, ?, ?, ?)');
      const serverIds = new Map<string, number>();
      for (const s of servers) serverIds.set(s.name, Number(add.run(runId, s.name, s.profile, s.url, s.software, s.protocol).lastInsertRowid));
      return { runId, serverIds };
    })();
  }

  /** What the server said it is, once connected (unknown when the run was created). */
  setServerSoftware(serverId: number, software: string, protocol: string): void {
    this.db.prepare('UPDATE load_servers SET software = ?, protocol = ? WHERE id = ?').run(software, protocol, serverId);
  }

  /** One finished second of one server, with its cells, in one transaction. */
  addInterval(runId: number, serverId: number, rec: IntervalRecord, step: number | null = null): void {
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

  finishRun(runId: number, end: LoadRunEnd): void {
    this.db
      .prepare(
        `UPDATE load_runs SET status = ?, finished_at = ?, generator_bound = ?, generator_json = ?, thresholds_json = ?, find_max_json = ? WHERE id = ?`,
      )
      .run(
        end.status,
        new Date().toISOString(),
        end.generatorBound ? 1 : 0,
        end.generator === undefined ? null : JSON.stringify(end.generator),
        end.thresholds === undefined ? null : JSON.stringify(end.thresholds),
        end.findMax === undefined ? null : JSON.stringify(end.findMax),
        runId,
      );
  }

  runs(): LoadRunRow[] {
    return this.db.prepare('SELECT * FROM load_runs ORDER BY id').all() as LoadRunRow[];
  }

  run(id: number): LoadRunRow | undefined {
    return this.db.prepare('SELECT * FROM load_runs WHERE id = ?').get(id) as LoadRunRow | undefined;
  }

  servers(runId: number): LoadServerRow[] {
    return this.db.prepare('SELECT * FROM load_servers WHERE run_id = ? ORDER BY id').all(runId) as LoadServerRow[];
  }

  /** Every interval of a run's server, in order, with its cells, streamed (memory stays flat). */
  *intervals(runId: number, serverId: number): Generator<IntervalRecord & { step: number | null }> {
    const server = (this.db.prepare('SELECT name FROM load_servers WHERE id = ?').get(serverId) as { name: string } | undefined)?.name ?? String(serverId);
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
