/**
 * The results database (SQLite through better-sqlite3, WAL). Samples are inserted in batched
 * transactions; WAL plus synchronous=NORMAL means a SIGKILL loses at most the last uncommitted
 * batch and never corrupts the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './schema';
import type { DatasetLine } from '../dataset/line';
import { UserError } from '../user-error';

export interface RunRecord {
  id: number;
  started_at: string;
  finished_at: string | null;
  status: 'running' | 'interrupted' | 'completed' | 'failed';
  tool_version: string;
  git_commit: string | null;
  node_version: string;
  host_json: string;
  config_json: string;
  dataset_id: string;
  dataset_path: string;
  dataset_hash: string;
  dataset_lines: number;
  passes: number;
  warmup: number;
  methods: string;
  selfcheck_json: string | null;
  pool_json: string | null;
}

export interface ServerRecord {
  id: number;
  run_id: number;
  name: string;
  profile: string;
  url: string;
  software: string | null;
  protocol: string | null;
  banner: string | null;
  features_json: string | null;
}

export interface SampleRow {
  serverId: number;
  pass: number;
  warmup: boolean;
  addressIdx: number;
  method: string;
  atMs: number;
  latencyNs: bigint;
  responseBytes: number | null;
  resultSize: number | null;
  status: string; // 'ok' or an error category
  error: string | null;
  tipHeight: number | null;
  mismatch: boolean | null;
}

export type NewRun = Omit<RunRecord, 'id' | 'finished_at' | 'status' | 'selfcheck_json' | 'pool_json'>;

export class ResultsStore {
  readonly db: Database.Database;
  private readonly insertSample: Database.Statement;
  private pending: SampleRow[] = [];
  private currentRun = 0;

  private constructor(db: Database.Database) {
    this.db = db;
    this.insertSample = db.prepare(`INSERT OR REPLACE INTO samples
      (run_id, server_id, pass, warmup, address_idx, method, at_ms, latency_ns, response_bytes, result_size, status, error, tip_height, mismatch)
      VALUES (@runId, @serverId, @pass, @warmup, @addressIdx, @method, @atMs, @latencyNs, @responseBytes, @resultSize, @status, @error, @tipHeight, @mismatch)`);
  }

  /** Which run `add()` writes samples into. */
  setRun(id: number): void {
    this.flush();
    this.currentRun = id;
  }

  static open(file: string, opts: { readonly?: boolean } = {}): ResultsStore {
    if (opts.readonly && !fs.existsSync(file)) throw new UserError(`--db: no such results database: ${file}`);
    if (!opts.readonly) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    let db: Database.Database;
    try {
      db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
      if (!opts.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        migrate(db);
      }
      db.pragma('foreign_keys = ON');
      db.prepare('SELECT count(*) FROM runs').get();
    } catch (err) {
      throw new UserError(`--db: ${file} is not an electrum-bench results database (${(err as Error).message})`);
    }
    return new ResultsStore(db);
  }

  createRun(run: NewRun, servers: Array<Omit<ServerRecord, 'id' | 'run_id'>>, lines: DatasetLine[]): { runId: number; serverIds: number[] } {
    return this.db.transaction(() => {
      const info = this.db
        .prepare(`INSERT INTO runs (started_at, status, tool_version, git_commit, node_version, host_json, config_json,
          dataset_id, dataset_path, dataset_hash, dataset_lines, passes, warmup, methods)
          VALUES (@started_at, 'running', @tool_version, @git_commit, @node_version, @host_json, @config_json,
          @dataset_id, @dataset_path, @dataset_hash, @dataset_lines, @passes, @warmup, @methods)`)
        .run(run);
      const runId = Number(info.lastInsertRowid);
      const addServer = this.db.prepare(`INSERT INTO servers (run_id, name, profile, url, software, protocol, banner, features_json)
        VALUES (@run_id, @name, @profile, @url, @software, @protocol, @banner, @features_json)`);
      const serverIds = servers.map((s) => Number(addServer.run({ ...s, run_id: runId }).lastInsertRowid));
      const addAddress = this.db.prepare(`INSERT INTO addresses (run_id, idx, address, scripthash, type, tx_count, utxo_count,
        balance_confirmed, balance_unconfirmed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      lines.forEach((l, i) =>
        addAddress.run(runId, i, l.address, l.scripthash, l.type, l.txCount, l.utxoCount, l.balance.confirmed, l.balance.unconfirmed),
      );
      return { runId, serverIds };
    })();
  }

  getRun(id: number): RunRecord | undefined {
    return this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRecord | undefined;
  }

  listRuns(): RunRecord[] {
    return this.db.prepare('SELECT * FROM runs ORDER BY id').all() as RunRecord[];
  }

  servers(runId: number): ServerRecord[] {
    return this.db.prepare('SELECT * FROM servers WHERE run_id = ? ORDER BY id').all(runId) as ServerRecord[];
  }

  /** Keys "serverId:pass:addressIdx:method" already measured: what a resumed run skips. */
  doneKeys(runId: number): Set<string> {
    const rows = this.db
      .prepare('SELECT server_id, pass, address_idx, method FROM samples WHERE run_id = ?')
      .raw()
      .all(runId) as Array<[number, number, number, string]>;
    return new Set(rows.map(([s, p, a, m]) => `${s}:${p}:${a}:${m}`));
  }

  add(sample: SampleRow): void {
    this.pending.push(sample);
    if (this.pending.length >= 500) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    const runId = this.currentRun;
    this.db.transaction(() => {
      for (const s of rows) {
        this.insertSample.run({
          runId,
          serverId: s.serverId,
          pass: s.pass,
          warmup: s.warmup ? 1 : 0,
          addressIdx: s.addressIdx,
          method: s.method,
          atMs: s.atMs,
          latencyNs: s.latencyNs,
          responseBytes: s.responseBytes,
          resultSize: s.resultSize,
          status: s.status,
          error: s.error,
          tipHeight: s.tipHeight,
          mismatch: s.mismatch === null ? null : s.mismatch ? 1 : 0,
        });
      }
    })();
  }

  finishRun(runId: number, status: RunRecord['status'], extra: { selfcheck?: unknown; pool?: unknown }): void {
    this.flush();
    this.db
      .prepare('UPDATE runs SET status = ?, finished_at = ?, selfcheck_json = coalesce(?, selfcheck_json), pool_json = coalesce(?, pool_json) WHERE id = ?')
      .run(
        status,
        new Date().toISOString(),
        extra.selfcheck === undefined ? null : JSON.stringify(extra.selfcheck),
        extra.pool === undefined ? null : JSON.stringify(extra.pool),
        runId,
      );
  }

  markResumed(runId: number): void {
    this.db.prepare("UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?").run(runId);
  }

  close(): void {
    this.flush();
    this.db.close();
  }
}
