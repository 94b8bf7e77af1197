/**
 * Limits runs in the results database (migration 11): the run (kind 'limits') with its servers, and
 * each limit found as a row of limit_findings, written as soon as it is found, so a stopped run
 * keeps what it found and the next run on the same server takes it over instead of probing again.
 */
import type { FinalStatus } from '../core/run-status';
import type { LimitFinding, LimitName, PastLimit } from '../core/server-limits';
import type { ResultsStore } from './results';
import { createRun, finishRun, RUN_NUMBER, type NewServer, type NumberedRun, type RunRow } from './run-record';

export interface NewLimitsRun {
  tool_version: string;
  git_commit: string | null;
  config: unknown; // never a secret
  dataset_path: string | null;
  dataset_hash: string | null;
}

/** A finding as stored: with the run it was found in when this run took it over. */
export type StoredFinding = LimitFinding & { carriedFrom: number | null };

export interface LimitsServerFindings {
  server: string;
  url: string;
  findings: StoredFinding[];
}

interface FindingRow {
  server_id: number;
  limit_name: LimitName;
  value: number | null;
  tried_up_to: number;
  past_json: string | null;
  recovery_ms: number | null;
  source: 'measured' | 'configured';
  note: string | null;
  carried_from: number | null;
}

export type LimitsRunRow = RunRow & NumberedRun;

export class LimitStore {
  constructor(private readonly results: ResultsStore) {}

  private get db() {
    return this.results.db;
  }

  createRun(run: NewLimitsRun, servers: readonly NewServer[]): { runId: number; serverIds: number[] } {
    return createRun(
      this.db,
      { kind: 'limits', tool_version: run.tool_version, git_commit: run.git_commit, config_json: JSON.stringify(run.config), dataset_path: run.dataset_path, dataset_hash: run.dataset_hash },
      servers,
    );
  }

  finishRun(runId: number, status: FinalStatus): void {
    finishRun(this.db, runId, status);
  }

  addFinding(runId: number, serverId: number, f: LimitFinding, carriedFrom: number | null = null): void {
    this.db
      .prepare(`INSERT INTO limit_findings (run_id, server_id, limit_name, value, tried_up_to, past_json, recovery_ms, source, note, carried_from, found_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(runId, serverId, f.limit, f.value, f.triedUpTo, f.past ? JSON.stringify(f.past) : null, f.recoveryMs, f.source, f.note ?? null, carriedFrom, new Date().toISOString());
  }

  /** Each server of the run with its findings, in the order they were found. */
  findings(runId: number): LimitsServerFindings[] {
    const servers = this.db.prepare('SELECT id, name, url FROM run_servers WHERE run_id = ? ORDER BY id').all(runId) as Array<{ id: number; name: string; url: string }>;
    const rows = this.db.prepare('SELECT * FROM limit_findings WHERE run_id = ? ORDER BY rowid').all(runId) as FindingRow[];
    return servers.map((s) => ({ server: s.name, url: s.url, findings: rows.filter((r) => r.server_id === s.id).map(findingOf) }));
  }

  /**
   * What the latest limits run on the server at `url` found, each finding with the run it was first
   * found in: what a new run takes over. Empty when no run probed that server.
   */
  latestFindings(url: string): Array<{ finding: LimitFinding; foundIn: number }> {
    const last = this.db
      .prepare(`SELECT s.id AS server_id, s.run_id FROM run_servers s JOIN runs r ON r.id = s.run_id WHERE r.kind = 'limits' AND s.url = ? ORDER BY s.run_id DESC LIMIT 1`)
      .get(url) as { server_id: number; run_id: number } | undefined;
    if (!last) return [];
    const rows = this.db.prepare('SELECT * FROM limit_findings WHERE run_id = ? AND server_id = ? ORDER BY rowid').all(last.run_id, last.server_id) as FindingRow[];
    return rows.map((r) => ({ finding: stripCarried(findingOf(r)), foundIn: r.carried_from ?? last.run_id }));
  }

  /** The latest limits run (completed or not: a stopped one keeps what it found), or the one numbered `n`. */
  run(n?: number): LimitsRunRow | null {
    const row = this.db
      .prepare(`SELECT r.*, ${RUN_NUMBER} FROM runs r WHERE r.kind = 'limits' ${n === undefined ? '' : 'AND r.id = ?'} ORDER BY r.id DESC LIMIT 1`)
      .get(...(n === undefined ? [] : [n])) as LimitsRunRow | undefined;
    return row ?? null;
  }
}

function findingOf(r: FindingRow): StoredFinding {
  return {
    limit: r.limit_name,
    value: r.value,
    triedUpTo: r.tried_up_to,
    past: r.past_json === null ? null : (JSON.parse(r.past_json) as PastLimit),
    recoveryMs: r.recovery_ms,
    source: r.source,
    ...(r.note === null ? {} : { note: r.note }),
    carriedFrom: r.carried_from,
  };
}

function stripCarried({ carriedFrom: _c, ...f }: StoredFinding): LimitFinding {
  return f;
}
