/**
 * The results database (SQLite through better-sqlite3, WAL). Samples are inserted in batched
 * transactions; WAL plus synchronous=NORMAL means a SIGKILL loses at most the last uncommitted
 * batch and never corrupts the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from './schema';
import type { DatasetLine } from '../core/dataset-line';
import { UserError } from '../core/user-error';
import { createRun, finishRun, serversOf, type RunStatus, type ServerRow } from './run-record';
import { makeDirs } from '../core/output-path';
import { refuseForeignDatabase } from './ownership';
import { openReadOnly, ReadOnlyDb } from './read-only';

export interface RunRecord {
  id: number;
  started_at: string;
  finished_at: string | null;
  status: RunStatus;
  tool_version: string;
  git_commit: string | null;
  node_version: string;
  host_json: string;
  config_json: string;
  /** The id this run had before schema 8: the same id; null for runs written since. */
  legacy_id: number | null;
  dataset_id: string;
  dataset_path: string;
  dataset_hash: string;
  dataset_lines: number;
  passes: number;
  warmup: number;
  methods: string;
  selfcheck_json: string | null;
  pool_json: string | null;
  call_order: string | null;
  /** "host:pid" of the process measuring this run now; null when none is. */
  holder: string | null;
}

export interface SessionRecord {
  run_id: number;
  session: number;
  started_at: string;
  finished_at: string | null;
  status: string | null;
  host: string;
  pid: number;
  tool_version: string;
  git_commit: string | null;
  servers_json: string;
}

export type NewSession = Pick<SessionRecord, 'tool_version' | 'git_commit'> & {
  servers: Array<{ name: string; software: string; protocol: string }>;
};

export type ServerRecord = ServerRow;

export interface SampleRow {
  serverId: number;
  pass: number;
  warmup: boolean;
  /** Made in a cold pass (`bench --cold`): after the page cache was dropped and the servers restarted. */
  cold?: boolean;
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
  /** Requests the answer took (REST history pages); absent or null for one Electrum call. */
  requests?: number | null;
}

/** How a server's calls of a run ended (ResultsStore.callEnds). */
export interface CallEnds {
  byOutcome: Record<string, number>;
  answered: number;
  unansweredAfter: number;
  firstAtMs: number;
  lastAnswerEndMs: number | null;
  lastEndMs: number;
}

export type NewRun = Omit<RunRecord, 'id' | 'finished_at' | 'status' | 'selfcheck_json' | 'pool_json' | 'holder' | 'legacy_id'>;

/** A bench run is its row of `runs` with its detail row. */
const BENCH_RUNS = "SELECT r.*, b.* FROM runs r JOIN bench_runs b ON b.run_id = r.id WHERE r.kind = 'bench'";

/** Who this process is, as recorded in `runs.holder` and `run_sessions`. */
const SELF = { host: os.hostname(), pid: process.pid };
const SELF_HOLDER = `${SELF.host}:${SELF.pid}`;

/** Every store open in this process, so a command stopped by a signal can close them (see closeOpenStores). */
const OPEN_STORES = new Set<ResultsStore>();

/**
 * Closes every store still open: a read-only open's `-wal`/`-shm` and an older database's upgraded
 * copy are removed, and a writer's buffered samples are written. For a command ended by a signal.
 */
export function closeOpenStores(): void {
  for (const store of [...OPEN_STORES]) store.close();
}

/**
 * Whether the database at `file` holds a run of any kind. One that holds none (no file, no
 * schema yet, nothing stored) is no result: a file this process created and left so can go.
 * One that cannot be read counts as holding one (it is kept).
 */
export function holdsAnyRun(file: string): boolean {
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) return false;
  let readOnly: ReadOnlyDb | undefined;
  try {
    readOnly = openReadOnly(file);
    return readOnly.db.prepare('SELECT 1 FROM runs LIMIT 1').get() !== undefined;
  } catch (err) {
    // Only a database without the table is known to hold nothing; one that cannot be read is kept.
    return !/no such table/.test((err as Error).message);
  } finally {
    readOnly?.close();
  }
}

export class ResultsStore {
  readonly db: Database.Database;
  private readonly insertSample: Database.Statement;
  private pending: SampleRow[] = [];
  private currentRun = 0;
  private lastFlushNs = process.hrtime.bigint();
  /** A read of an older database reads an upgraded copy in this directory, removed on close: the file read stays as it was. */
  private scratch: string | undefined;
  /** Removes what a read-only open left beside the file. */
  private afterClose?: () => void;

  private constructor(db: Database.Database) {
    this.db = db;
    this.insertSample = db.prepare(`INSERT OR REPLACE INTO samples
      (run_id, server_id, pass, warmup, cold, address_idx, method, at_ms, latency_ns, response_bytes, result_size, status, error, tip_height, mismatch, requests)
      VALUES (@runId, @serverId, @pass, @warmup, @cold, @addressIdx, @method, @atMs, @latencyNs, @responseBytes, @resultSize, @status, @error, @tipHeight, @mismatch, @requests)`);
  }

  /** Which run `add()` writes samples into. */
  setRun(id: number): void {
    this.flush();
    this.currentRun = id;
  }

  static open(file: string, opts: { readonly?: boolean } = {}): ResultsStore {
    if (opts.readonly && !fs.existsSync(file)) throw new UserError(`--db: no such results database: ${file}`);
    if (!opts.readonly) {
      try {
        makeDirs(path.dirname(path.resolve(file)));
      } catch (err) {
        throw new UserError(`--db: cannot create directory ${path.dirname(file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    }
    if (!opts.readonly) refuseForeignDatabase(file);
    let db: Database.Database;
    let scratch: string | undefined;
    let readOnly: ReadOnlyDb | undefined;
    try {
      if (opts.readonly) readOnly = openReadOnly(file);
      db = readOnly?.db ?? new Database(file);
      if (!opts.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        migrate(db);
      } else if (isOlder(db.pragma('user_version', { simple: true }) as number)) {
        ({ db, scratch } = upgradedCopy(db));
        readOnly?.close();
      }
      db.pragma('foreign_keys = ON');
      db.prepare('SELECT count(*) FROM runs').get();
    } catch (err) {
      readOnly?.close();
      if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
      throw new UserError(`--db: ${file} is not an electrum-bench results database (${(err as Error).message})`);
    }
    const store = new ResultsStore(db);
    store.scratch = scratch;
    store.afterClose = readOnly?.close;
    OPEN_STORES.add(store);
    return store;
  }

  createRun(run: NewRun, servers: Array<Omit<ServerRecord, 'id' | 'run_id' | 'setup_json'> & { setup_json?: string | null }>, lines: DatasetLine[]): { runId: number; serverIds: number[] } {
    return this.db.transaction(() => {
      const { runId, serverIds } = createRun(this.db, { ...run, kind: 'bench', holder: SELF_HOLDER }, servers);
      this.db
        .prepare(`INSERT INTO bench_runs (run_id, dataset_id, dataset_lines, passes, warmup, methods, call_order)
          VALUES (@runId, @dataset_id, @dataset_lines, @passes, @warmup, @methods, @call_order)`)
        .run({ ...run, runId });
      const addAddress = this.db.prepare(`INSERT INTO addresses (run_id, idx, address, scripthash, type, tx_count, utxo_count,
        balance_confirmed, balance_unconfirmed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      lines.forEach((l, i) =>
        addAddress.run(runId, i, l.address, l.scripthash, l.type, l.txCount, l.utxoCount, l.balance.confirmed, l.balance.unconfirmed),
      );
      return { runId, serverIds };
    })();
  }

  /** `fn` in one transaction: what it writes appears whole or not at all. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  getRun(id: number): RunRecord | undefined {
    return this.db.prepare(`${BENCH_RUNS} AND r.id = ?`).get(id) as RunRecord | undefined;
  }

  listRuns(): RunRecord[] {
    return this.db.prepare(`${BENCH_RUNS} ORDER BY r.id`).all() as RunRecord[];
  }

  servers(runId: number): ServerRecord[] {
    return serversOf(this.db, runId);
  }

  /** Every call of the run (warm-up included), per measured server. */
  callsPerServer(runId: number): Map<string, number> {
    const rows = this.db
      .prepare('SELECT s.name AS name, count(*) AS n FROM samples x JOIN run_servers s ON s.id = x.server_id WHERE x.run_id = ? GROUP BY s.name')
      .all(runId) as Array<{ name: string; n: number }>;
    return new Map(rows.map((r) => [r.name, r.n]));
  }

  /**
   * How each server's calls of a run ended (warm-up included): counts by status; of them, how many
   * were answered (`answered`: the statuses that are answers); when the first was made, the last
   * answer came back and the last call ended (ms since the epoch); and the unanswered calls made
   * after that last answer came back.
   */
  callEnds(runId: number, answered: readonly string[]): Map<string, CallEnds> {
    const inAnswered = answered.map(() => '?').join(', ');
    const rows = this.db
      .prepare(
        `WITH x AS (SELECT s.name AS name, c.status AS status, c.at_ms AS at, c.at_ms + c.latency_ns / 1000000.0 AS "end", c.status IN (${inAnswered}) AS ok
                      FROM samples c JOIN run_servers s ON s.id = c.server_id WHERE c.run_id = ?),
              last AS (SELECT name, max(CASE WHEN ok THEN "end" END) AS answer, min(at) AS first, max("end") AS final FROM x GROUP BY name)
         SELECT x.name, x.status, count(*) AS n, sum(x.ok) AS answered, sum(NOT x.ok AND last.answer IS NOT NULL AND x.at + 1 > last.answer) + sum(NOT x.ok AND last.answer IS NULL) AS after,
                last.answer, last.first, last.final
           FROM x JOIN last ON last.name = x.name GROUP BY x.name, x.status`,
      )
      .all(...answered, runId) as Array<{ name: string; status: string; n: number; answered: number; after: number; answer: number | null; first: number; final: number }>;
    const out = new Map<string, CallEnds>();
    for (const r of rows) {
      const c = out.get(r.name) ?? { byOutcome: {}, answered: 0, unansweredAfter: 0, firstAtMs: r.first, lastAnswerEndMs: r.answer, lastEndMs: r.final };
      c.byOutcome[r.status] = r.n;
      c.answered += r.answered;
      c.unansweredAfter += r.after;
      out.set(r.name, c);
    }
    return out;
  }

  /** Every call of a run already measured, streamed (a resumed run skips them; memory stays flat). */
  forEachDone(runId: number, fn: (serverId: number, pass: number, addressIdx: number, method: string) => void): void {
    const rows = this.db.prepare('SELECT server_id, pass, address_idx, method FROM samples WHERE run_id = ?').raw();
    for (const [s, p, a, m] of rows.iterate(runId) as IterableIterator<[number, number, number, string]>) fn(s, p, a, m);
  }

  add(sample: SampleRow): void {
    this.pending.push(sample);
  }

  /** Whether a flush is due: 500 samples waiting, or one second since the last flush. */
  get flushDue(): boolean {
    return this.pending.length >= 500 || (this.pending.length > 0 && process.hrtime.bigint() - this.lastFlushNs >= 1_000_000_000n);
  }

  get unflushed(): number {
    return this.pending.length;
  }

  flush(): void {
    this.lastFlushNs = process.hrtime.bigint();
    if (this.pending.length === 0 || !this.db.open) return;
    const rows = this.pending;
    const runId = this.currentRun;
    this.db.transaction(() => {
      for (const s of rows) {
        this.insertSample.run({
          runId,
          serverId: s.serverId,
          pass: s.pass,
          warmup: s.warmup ? 1 : 0,
          cold: s.cold ? 1 : 0,
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
          requests: s.requests ?? null,
        });
      }
    })();
    // Cleared only once committed: a refused batch (SQLITE_BUSY, a full disk) is not lost.
    this.pending = this.pending.slice(rows.length);
  }

  finishRun(runId: number, status: RunRecord['status'], extra: { selfcheck?: unknown; pool?: unknown }): void {
    this.flush();
    const now = new Date().toISOString();
    this.db.transaction(() => {
      finishRun(this.db, runId, status, now);
      this.db
        .prepare('UPDATE bench_runs SET selfcheck_json = coalesce(?, selfcheck_json), pool_json = coalesce(?, pool_json) WHERE run_id = ?')
        .run(extra.selfcheck === undefined ? null : JSON.stringify(extra.selfcheck), extra.pool === undefined ? null : JSON.stringify(extra.pool), runId);
      this.db
        .prepare('UPDATE run_sessions SET finished_at = ?, status = ? WHERE run_id = ? AND finished_at IS NULL AND host = ? AND pid = ?')
        .run(now, status, runId, SELF.host, SELF.pid);
    })();
  }

  /**
   * Takes a run for this process (a resume): refused while another live process holds it. A holder
   * that died (SIGKILL, a crash) holds nothing. BEGIN IMMEDIATE makes the check-and-take atomic
   * between processes.
   */
  claimRun(runId: number): void {
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT holder FROM runs WHERE id = ?').get(runId) as { holder: string | null } | undefined;
        const holder = row?.holder;
        if (holder && holder !== SELF_HOLDER && holderAlive(holder)) {
          throw new UserError(`--resume: run ${runId} is being measured right now by process ${holder.replace(/:(\d+)$/, ' pid $1')}; wait for it or stop it first`);
        }
        this.db.prepare("UPDATE runs SET status = 'running', finished_at = NULL, holder = ? WHERE id = ?").run(SELF_HOLDER, runId);
      })
      .immediate();
  }

  /** Records that this process starts measuring (part of) a run: one row per session. */
  addSession(runId: number, s: NewSession): number {
    return this.db.transaction(() => {
      const { n } = this.db.prepare('SELECT count(*) AS n FROM run_sessions WHERE run_id = ?').get(runId) as { n: number };
      this.db
        .prepare(`INSERT INTO run_sessions (run_id, session, started_at, host, pid, tool_version, git_commit, servers_json)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(runId, n + 1, new Date().toISOString(), SELF.host, SELF.pid, s.tool_version, s.git_commit, JSON.stringify(s.servers));
      return n + 1;
    })();
  }

  sessions(runId: number): SessionRecord[] {
    return this.db.prepare('SELECT * FROM run_sessions WHERE run_id = ? ORDER BY session').all(runId) as SessionRecord[];
  }

  close(): void {
    if (!this.db.open) return;
    this.flush();
    this.db.close();
    if (this.scratch) fs.rmSync(this.scratch, { recursive: true, force: true });
    this.afterClose?.();
    OPEN_STORES.delete(this);
  }
}

/** Version 0 is no electrum-bench database at all: read as it is, it is refused as one. */
const isOlder = (version: number) => version >= 1 && version < SCHEMA_VERSION;

/**
 * An older database opened to be read: copied as it is (VACUUM INTO reads a consistent snapshot,
 * its WAL included, through the read-only connection) to a scratch file, which is upgraded.
 */
function upgradedCopy(source: Database.Database): { db: Database.Database; scratch: string } {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'electrum-bench-read-'));
  try {
    const copy = path.join(scratch, 'upgraded.sqlite');
    try {
      source.prepare('VACUUM INTO ?').run(copy);
    } finally {
      source.close();
    }
    const db = new Database(copy);
    try {
      migrate(db);
    } catch (err) {
      db.close();
      throw err;
    }
    return { db, scratch };
  } catch (err) {
    fs.rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
}

/** A holder on another host cannot be checked from here, so it counts as alive. */
function holderAlive(holder: string): boolean {
  const m = /^(.*):(\d+)$/.exec(holder);
  if (!m || m[1] !== SELF.host) return true;
  try {
    process.kill(Number(m[2]), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
