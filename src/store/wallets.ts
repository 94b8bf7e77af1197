/**
 * Wallet runs in the results database: the run record (run-record.ts) with its wallet details, one row per
 * wallet sync with every request it sent, and the notifications held wallets received. A sync is
 * written whole, in one transaction, as soon as it ends, so an interrupted run keeps every sync
 * that finished.
 */
import type { FinalStatus } from '../core/run-status';
import type { ResultsStore } from './results';
import { createRun, finishRun, setServerInfo, type NumberedRun, type RunRow, type ServerRow } from './run-record';
import type { RequestSample } from '../core/sync-steps';

export interface NewWalletRun {
  kind: 'bench' | 'load';
  tool_version: string;
  git_commit: string | null;
  config: unknown; // never a secret
  workload: string;
  wallets_path: string;
  wallets_hash: string;
  passes: number | null;
  warmup: number | null;
}

export interface WalletServer {
  name: string;
  profile: string;
  url: string;
  software: string | null;
  protocol: string | null;
  setup?: unknown;
}

export interface SyncRecord {
  serverId: number;
  wallet: string;
  pass: number;
  warmup: boolean;
  scripts: number;
  expectedTxs: number;
  /** Load runs: when the wallet was due to arrive (ms since the run began), and how late it came. */
  intendedMs?: number;
  lagMs?: number;
  durationNs: bigint;
  status: string; // 'ok' or an error category
  error?: string;
  errorStep?: string;
  found?: { txs: number; confirmed: number; unconfirmed: number };
  mismatch?: string[];
  samples: RequestSample[];
}

export interface NotificationRecord {
  serverId: number;
  blockHeight: number;
  kind: 'headers' | 'scripthash';
  connection: number;
  scripthash: string | null;
  latencyNs: bigint | null;
  status: 'ok' | 'missing' | 'duplicate';
}

/** A wallet run as the report reads it: its row of `runs` with its detail row, kind as before schema 8. */
export interface WalletRunRow extends Omit<RunRow, 'kind' | 'node_version'>, NumberedRun {
  kind: 'bench' | 'load';
  node_version: string;
  workload: string;
  wallets_path: string;
  wallets_hash: string;
  passes: number | null;
  warmup: number | null;
  summary_json: string | null;
}

export type WalletServerRow = ServerRow;

export class WalletStore {
  constructor(private readonly results: ResultsStore) {}

  private get db() {
    return this.results.db;
  }

  createRun(run: NewWalletRun, servers: WalletServer[]): { runId: number; serverIds: Map<string, number> } {
    return this.db.transaction(() => {
      const { runId, serverIds } = createRun(
        this.db,
        {
          kind: run.kind === 'bench' ? 'wallet-bench' : 'wallet-load',
          tool_version: run.tool_version,
          git_commit: run.git_commit,
          config_json: JSON.stringify(run.config),
          dataset_path: run.wallets_path,
          dataset_hash: run.wallets_hash,
        },
        servers.map(({ setup, ...s }) => ({ ...s, setup_json: setup === undefined ? null : JSON.stringify(setup) })),
      );
      this.db.prepare('INSERT INTO wallet_runs (run_id, workload, passes, warmup) VALUES (?, ?, ?, ?)').run(runId, run.workload, run.passes, run.warmup);
      return { runId, serverIds: new Map(servers.map((s, i) => [s.name, serverIds[i]])) };
    })();
  }

  /** What a server said of itself, learnt at its first connection. */
  setServerIdentity(serverId: number, software: string, protocol: string): void {
    setServerInfo(this.db, serverId, { software: software || null, protocol: protocol || null }, true);
  }

  /** Servers whose identity is stored: the first one a server gives is the one kept. */
  private readonly identified = new Set<number>();

  /** A sync stored, with what its server said of itself if that is not stored yet. */
  recordSync(runId: number, r: SyncRecord, server: { software?: string; protocol?: string }): void {
    if (server.software && !this.identified.has(r.serverId)) {
      this.setServerIdentity(r.serverId, server.software, server.protocol ?? '');
      this.identified.add(r.serverId);
    }
    this.addSync(runId, r);
  }

  addSync(runId: number, r: SyncRecord): number {
    return this.db.transaction(() => {
      const bytes = r.samples.reduce((n, s) => n + s.bytes, 0);
      const id = Number(
        this.db
          .prepare(
            `INSERT INTO wallet_syncs (run_id, server_id, wallet, pass, warmup, scripts, expected_txs, intended_ms, lag_ms, duration_ns, requests, bytes,
               status, error, error_step, found_txs, found_confirmed, found_unconfirmed, mismatch)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            runId,
            r.serverId,
            r.wallet,
            r.pass,
            r.warmup ? 1 : 0,
            r.scripts,
            r.expectedTxs,
            r.intendedMs ?? null,
            r.lagMs ?? null,
            r.durationNs,
            r.samples.length,
            bytes,
            r.status,
            r.error ?? null,
            r.errorStep ?? null,
            r.found?.txs ?? null,
            r.found?.confirmed ?? null,
            r.found?.unconfirmed ?? null,
            r.mismatch && r.mismatch.length ? r.mismatch.join('; ') : null,
          ).lastInsertRowid,
      );
      const add = this.db.prepare('INSERT INTO wallet_requests (sync_id, step, method, items, offset_ns, latency_ns, bytes, status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const s of r.samples) add.run(id, s.step, s.method, s.items, s.offsetNs, s.latencyNs, s.bytes, s.outcome, s.error ?? null);
      return id;
    })();
  }

  addNotifications(runId: number, rows: NotificationRecord[]): void {
    const add = this.db.prepare(
      'INSERT INTO wallet_notifications (run_id, server_id, block_height, kind, connection, scripthash, latency_ns, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const n of rows) add.run(runId, n.serverId, n.blockHeight, n.kind, n.connection, n.scripthash, n.latencyNs, n.status);
    })();
  }

  /**
   * A wallet bench's figures per server from its stored syncs, as a bench's come from its samples
   * (statistics.ts): syncs, failed and mismatched ones (every pass), and each wallet's sync times
   * (ms) over the ok syncs of the passes counted (warm-up passes left out).
   */
  /** How each server's syncs of a run ended: counts by status, by server id (warm-up passes included). */
  syncOutcomes(runId: number): Map<number, Record<string, number>> {
    const out = new Map<number, Record<string, number>>();
    const rows = this.db.prepare('SELECT server_id AS serverId, status, count(*) AS n FROM wallet_syncs WHERE run_id = ? GROUP BY server_id, status').all(runId) as Array<{ serverId: number; status: string; n: number }>;
    for (const r of rows) (out.get(r.serverId) ?? out.set(r.serverId, {}).get(r.serverId)!)[r.status] = r.n;
    return out;
  }

  benchFigures(runId: number): Array<{ serverId: number; syncs: number; failed: number; mismatched: number; byWallet: Map<string, number[]> }> {
    const counts = this.db
      .prepare(
        `SELECT server_id AS serverId, count(*) AS syncs, sum(status <> 'ok') AS failed, sum(mismatch IS NOT NULL) AS mismatched
           FROM wallet_syncs WHERE run_id = ? GROUP BY server_id`,
      )
      .all(runId) as Array<{ serverId: number; syncs: number; failed: number; mismatched: number }>;
    const times = this.db
      .prepare(`SELECT server_id AS serverId, wallet, duration_ns AS ns FROM wallet_syncs WHERE run_id = ? AND warmup = 0 AND status = 'ok' ORDER BY id`)
      .all(runId) as Array<{ serverId: number; wallet: string; ns: number }>;
    return counts.map((c) => {
      const byWallet = new Map<string, number[]>();
      for (const t of times) if (t.serverId === c.serverId) byWallet.set(t.wallet, [...(byWallet.get(t.wallet) ?? []), t.ns / 1e6]);
      return { ...c, byWallet };
    });
  }

  /** A run's syncs with their requests, as they were recorded, each with its server's name (a shard's, read for the merge). */
  *syncRecords(runId: number): Generator<{ server: string; record: Omit<SyncRecord, 'serverId'> }> {
    const requests = this.db.prepare(
      'SELECT step, method, items, offset_ns AS offsetNs, latency_ns AS latencyNs, bytes, status, error FROM wallet_requests WHERE sync_id = ? ORDER BY rowid',
    );
    const syncs = this.db.prepare(
      `SELECT y.id, v.name AS server, y.wallet, y.pass, y.warmup, y.scripts, y.expected_txs AS expectedTxs, y.intended_ms AS intendedMs, y.lag_ms AS lagMs,
              y.duration_ns AS durationNs, y.status, y.error, y.error_step AS errorStep, y.found_txs AS foundTxs, y.found_confirmed AS foundConfirmed,
              y.found_unconfirmed AS foundUnconfirmed, y.mismatch
         FROM wallet_syncs y JOIN run_servers v ON v.id = y.server_id WHERE y.run_id = ? ORDER BY y.id`,
    );
    type SyncRow = { id: number; server: string; wallet: string; pass: number; warmup: number; scripts: number; expectedTxs: number; intendedMs: number | null; lagMs: number | null; durationNs: number; status: string; error: string | null; errorStep: string | null; foundTxs: number | null; foundConfirmed: number | null; foundUnconfirmed: number | null; mismatch: string | null };
    type RequestRow = { step: RequestSample['step']; method: string; items: number; offsetNs: number; latencyNs: number; bytes: number; status: RequestSample['outcome']; error: string | null };
    for (const y of syncs.iterate(runId) as IterableIterator<SyncRow>) {
      const samples = (requests.all(y.id) as RequestRow[]).map((q): RequestSample => ({ step: q.step, method: q.method, items: q.items, offsetNs: BigInt(q.offsetNs), latencyNs: BigInt(q.latencyNs), bytes: q.bytes, outcome: q.status, error: q.error ?? undefined }));
      yield {
        server: y.server,
        record: {
          wallet: y.wallet,
          pass: y.pass,
          warmup: y.warmup !== 0,
          scripts: y.scripts,
          expectedTxs: y.expectedTxs,
          intendedMs: y.intendedMs ?? undefined,
          lagMs: y.lagMs ?? undefined,
          durationNs: BigInt(y.durationNs),
          status: y.status,
          error: y.error ?? undefined,
          errorStep: y.errorStep ?? undefined,
          found: y.foundTxs === null ? undefined : { txs: y.foundTxs, confirmed: y.foundConfirmed ?? 0, unconfirmed: y.foundUnconfirmed ?? 0 },
          mismatch: y.mismatch === null ? undefined : y.mismatch.split('; '),
          samples,
        },
      };
    }
  }

  /** A run's notifications as they were recorded, each with its server's name. */
  notificationRecords(runId: number): Array<{ server: string; record: Omit<NotificationRecord, 'serverId'> }> {
    type Row = { server: string; blockHeight: number; kind: NotificationRecord['kind']; connection: number; scripthash: string | null; latencyNs: number | null; status: NotificationRecord['status'] };
    const rows = this.db
      .prepare(
        `SELECT v.name AS server, n.block_height AS blockHeight, n.kind, n.connection, n.scripthash, n.latency_ns AS latencyNs, n.status
           FROM wallet_notifications n JOIN run_servers v ON v.id = n.server_id WHERE n.run_id = ? ORDER BY n.rowid`,
      )
      .all(runId) as Row[];
    return rows.map(({ server, latencyNs, ...r }) => ({ server, record: { ...r, latencyNs: latencyNs === null ? null : BigInt(latencyNs) } }));
  }

  finishRun(runId: number, status: FinalStatus, summary: unknown): void {
    this.db.transaction(() => {
      finishRun(this.db, runId, status);
      this.db.prepare('UPDATE wallet_runs SET summary_json = ? WHERE run_id = ?').run(JSON.stringify(summary), runId);
    })();
  }
}
