/**
 * Wallet runs in the results database (schema migration 7): the run, its servers, one row per
 * wallet sync with every request it sent, and the notifications held wallets received. A sync is
 * written whole, in one transaction, as soon as it ends, so an interrupted run keeps every sync
 * that finished.
 */
import { hostInfo } from '../core/host-info';
import type { ResultsStore } from './results';
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

export class WalletStore {
  constructor(private readonly results: ResultsStore) {}

  private get db() {
    return this.results.db;
  }

  createRun(run: NewWalletRun, servers: WalletServer[]): { runId: number; serverIds: Map<string, number> } {
    return this.db.transaction(() => {
      const info = this.db
        .prepare(
          `INSERT INTO wallet_runs (kind, started_at, status, tool_version, git_commit, node_version, host_json, config_json, workload,
             wallets_path, wallets_hash, passes, warmup) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          run.kind,
          new Date().toISOString(),
          run.tool_version,
          run.git_commit,
          process.version,
          JSON.stringify(hostInfo()),
          JSON.stringify(run.config),
          run.workload,
          run.wallets_path,
          run.wallets_hash,
          run.passes,
          run.warmup,
        );
      const runId = Number(info.lastInsertRowid);
      const add = this.db.prepare('INSERT INTO wallet_servers (run_id, name, profile, url, software, protocol, setup_json) VALUES (?, ?, ?, ?, ?, ?, ?)');
      const serverIds = new Map<string, number>();
      for (const s of servers) {
        serverIds.set(s.name, Number(add.run(runId, s.name, s.profile, s.url, s.software, s.protocol, s.setup === undefined ? null : JSON.stringify(s.setup)).lastInsertRowid));
      }
      return { runId, serverIds };
    })();
  }

  /** What a server said of itself, learnt at its first connection. */
  setServerIdentity(serverId: number, software: string, protocol: string): void {
    this.db.prepare('UPDATE wallet_servers SET software = coalesce(software, ?), protocol = coalesce(protocol, ?) WHERE id = ?').run(software || null, protocol || null, serverId);
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

  finishRun(runId: number, status: 'completed' | 'interrupted' | 'failed', summary: unknown): void {
    this.db.prepare('UPDATE wallet_runs SET status = ?, finished_at = ?, summary_json = ? WHERE id = ?').run(status, new Date().toISOString(), JSON.stringify(summary), runId);
  }
}
