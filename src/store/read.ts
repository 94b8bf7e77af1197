/**
 * The one reader of a results database: the report reads every kind of run through it. It hands
 * out rows as stored; what they mean (percentiles, medians, shares) is the report's to compute.
 */
import { AbuseStore, type AbuseRecord } from './abuse';
import { WalletStore } from './wallets';
import type { ResultsStore, RunRecord, ServerRecord } from './results';
import { LoadStore, type LoadRunRow } from './load-results';
import { IndexStore } from './index-results';
import { hasRunOf, resolveRun, RUN_NUMBER, serversOf, type RunFamily } from './run-record';
import { resourceSummaries, type ResourceSummary } from './resources';
import { firstTouches, type FirstTouch } from './statistics';
import type { WalletRunRow, WalletServerRow } from './wallets';

/**
 * Each address's transaction size, from the `tx` samples that answered it: the bench asks the same
 * transaction of an address on every server and pass (src/bench/wallet-subjects.ts), and the
 * addresses table predates the wallet calls.
 */
const TX_BYTES_JOIN = `LEFT JOIN (SELECT run_id, address_idx, max(result_size) AS tx_bytes FROM samples
                                   WHERE run_id IN ($RUNS) AND method = 'tx' AND status = 'ok' GROUP BY run_id, address_idx) t
                        ON t.run_id = $ON AND t.address_idx = a.idx`;

export interface MedianRow {
  server_id: number;
  method: string;
  address_idx: number;
  median_ns: number | null;
  n_ok: number;
  n_error: number;
  address: string | null;
  scripthash: string;
  type: string;
  tx_count: number;
  utxo_count: number;
  /** The size in bytes of the address's transaction as `tx` answered it (any server), null when none did. */
  tx_bytes: number | null;
}

export interface ErrorRow {
  server_id: number;
  method: string;
  address_idx: number;
  status: string;
  n: number;
  address: string | null;
  scripthash: string;
  tx_count: number;
  utxo_count: number;
  tx_bytes: number | null;
}

export interface SummaryRecord {
  server_id: number;
  method: string;
  n: number;
  n_ok: number;
  p50_ns: number | null;
  p90_ns: number | null;
  p99_ns: number | null;
  p999_ns: number | null;
  max_ns: number | null;
  mismatches: number | null;
  errors_json: string;
}

/** A (server, method)'s cold passes (`bench --cold`), with its warm median beside them. */
export interface ColdSummaryRecord {
  server_id: number;
  method: string;
  n: number;
  n_ok: number;
  p50_ns: number | null;
  max_ns: number | null;
  errors_json: string;
  warm_p50_ns: number | null;
  first_touches: number;
  first_touch_sum_ns: number;
  warm_median_sum_ns: number;
  /** Null for runs stored before schema 14. */
  warm_mean_sum_ns: number | null;
}

export interface SyncRow {
  server_id: number;
  wallet: string;
  pass: number;
  scripts: number;
  expected_txs: number;
  status: string;
  duration_ns: number;
}

/** Per server of a wallet run: wallets synced, and counted syncs that were ok, failed or mismatched. */
export interface SyncTotals {
  wallets: number;
  counted: number;
  ok: number;
  failed: number;
  mismatched: number;
  warmupFailed: number;
}

export type SyncTotalsRow = SyncTotals & { server_id: number };

export interface FailureRow {
  server_id: number;
  status: string;
  error_step: string | null;
  wallet: string;
  expected_txs: number;
  counted: number;
  warmup: number;
  example: string | null;
}

export interface NotificationRow {
  server_id: number;
  kind: 'headers' | 'scripthash';
  status: 'ok' | 'missing' | 'duplicate';
  latency_ns: number | null;
  block_height: number;
}

export interface ArrivalRow {
  server_id: number;
  status: string;
  lag_ms: number | null;
  duration_ns: number;
}

export interface StepRequestRow {
  sync: number;
  server: number;
  wallet: string;
  step: string;
  items: number;
  bytes: number;
  offset: number;
  latency: number;
}

export interface ResourceSeriesRow {
  target: string;
  at: number;
  cpu: number;
  rss: number;
  rd: number;
  wr: number;
}

/** A wallet run with its kind as before schema 8 ('bench' or 'load', the family being known). */
const WALLET_RUNS = `SELECT r.id, r.legacy_id, ${RUN_NUMBER}, substr(r.kind, length('wallet-') + 1) AS kind, r.started_at, r.finished_at, r.status, r.tool_version,
    r.git_commit, r.node_version, r.host_json, r.config_json, r.dataset_path, r.dataset_hash, r.holder,
    r.dataset_path AS wallets_path, r.dataset_hash AS wallets_hash, w.workload, w.passes, w.warmup, w.summary_json
  FROM runs r JOIN wallet_runs w ON w.run_id = r.id WHERE r.kind IN ('wallet-bench', 'wallet-load')`;

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(',');

/** One counted call's latency, for a verdict's resampling (bench runs). */
export interface PassLatencyRow {
  server_id: number;
  method: string;
  pass: number;
  scripthash: string;
  latency_ns: number;
}

export class ResultsReader {
  readonly load: LoadStore;
  readonly index: IndexStore;

  constructor(private readonly store: ResultsStore) {
    this.load = new LoadStore(store);
    this.index = new IndexStore(store);
  }

  private get db() {
    return this.store.db;
  }

  /** The run of a family a user's number names: its id, or the id it had before schema 8. */
  resolve(family: RunFamily, n: number): number | undefined {
    return resolveRun(this.db, family, n);
  }

  hasRuns(family: RunFamily): boolean {
    return hasRunOf(this.db, family);
  }

  benchRuns(): RunRecord[] {
    return this.store.listRuns();
  }

  benchServers(runId: number): ServerRecord[] {
    return this.store.servers(runId);
  }

  /** Per-address medians of the runs' servers, with each address's size. */
  medians(runIds: readonly number[]): MedianRow[] {
    return this.db
      .prepare(
        `SELECT m.server_id, m.method, m.address_idx, m.median_ns, m.n_ok, m.n_error,
                a.address, a.scripthash, a.type, a.tx_count, a.utxo_count, t.tx_bytes
         FROM medians m JOIN addresses a ON a.run_id = m.run_id AND a.idx = m.address_idx
         ${TX_BYTES_JOIN.replace('$RUNS', placeholders(runIds.length)).replace('$ON', 'm.run_id')}
         WHERE m.run_id IN (${placeholders(runIds.length)}) ORDER BY m.server_id, m.method, m.address_idx`,
      )
      .all(...runIds, ...runIds) as MedianRow[];
  }

  /** Every counted, answered call's latency by server, method, pass and address (warm passes): what a verdict resamples. */
  passLatencies(runIds: readonly number[]): PassLatencyRow[] {
    return this.db
      .prepare(
        `SELECT s.server_id, s.method, s.pass, a.scripthash, s.latency_ns
         FROM samples s JOIN addresses a ON a.run_id = s.run_id AND a.idx = s.address_idx
         WHERE s.run_id IN (${placeholders(runIds.length)}) AND s.warmup = 0 AND s.cold = 0 AND s.status = 'ok'`,
      )
      .all(...runIds) as PassLatencyRow[];
  }

  /** Counted failures per address and category, warm passes (medians keep only a count). */
  errorsPerAddress(runIds: readonly number[]): ErrorRow[] {
    return this.db
      .prepare(
        `SELECT s.server_id, s.method, s.address_idx, s.status, count(*) AS n, a.address, a.scripthash, a.tx_count, a.utxo_count, t.tx_bytes
         FROM samples s JOIN addresses a ON a.run_id = s.run_id AND a.idx = s.address_idx
         ${TX_BYTES_JOIN.replace('$RUNS', placeholders(runIds.length)).replace('$ON', 's.run_id')}
         WHERE s.run_id IN (${placeholders(runIds.length)}) AND s.warmup = 0 AND s.cold = 0 AND s.status <> 'ok'
         GROUP BY s.server_id, s.method, s.address_idx, s.status
         ORDER BY s.server_id, s.method, s.address_idx, s.status`,
      )
      .all(...runIds, ...runIds) as ErrorRow[];
  }

  summaries(runIds: readonly number[]): SummaryRecord[] {
    return this.db.prepare(`SELECT * FROM summaries WHERE run_id IN (${placeholders(runIds.length)}) ORDER BY server_id, method`).all(...runIds) as SummaryRecord[];
  }

  /** The runs' cold passes beside their warm passes; none for runs without --cold. */
  coldSummaries(runIds: readonly number[]): ColdSummaryRecord[] {
    return this.db
      .prepare(
        `SELECT c.server_id, c.method, c.n, c.n_ok, c.p50_ns, c.max_ns, c.errors_json, s.p50_ns AS warm_p50_ns, c.first_touches, c.first_touch_sum_ns, c.warm_median_sum_ns, c.warm_mean_sum_ns
         FROM cold_summaries c LEFT JOIN summaries s ON s.run_id = c.run_id AND s.server_id = c.server_id AND s.method = c.method
         WHERE c.run_id IN (${placeholders(runIds.length)}) ORDER BY c.server_id, c.method`,
      )
      .all(...runIds) as ColdSummaryRecord[];
  }

  /** The runs' first touches in cold passes beside the same calls warm (statistics' firstTouches); none for runs without --cold. */
  firstTouches(runIds: readonly number[]): FirstTouch[] {
    return runIds.flatMap((id) => firstTouches(this.store, id));
  }

  loadRuns(): LoadRunRow[] {
    return this.load.runs();
  }

  walletRuns(): WalletRunRow[] {
    return this.db.prepare(`${WALLET_RUNS} ORDER BY r.id`).all() as WalletRunRow[];
  }

  /** How each server's wallet syncs of a run ended, counts by status, by server id. */
  walletSyncOutcomes(runId: number): Map<number, Record<string, number>> {
    return new WalletStore(this.store).syncOutcomes(runId);
  }

  walletServers(runId: number): WalletServerRow[] {
    return serversOf(this.db, runId);
  }

  countedSyncs(runId: number): SyncRow[] {
    return this.db
      .prepare(
        `SELECT server_id, wallet, pass, scripts, expected_txs, status, duration_ns FROM wallet_syncs
          WHERE run_id = ? AND warmup = 0 ORDER BY server_id, expected_txs, wallet, id`,
      )
      .all(runId) as SyncRow[];
  }

  syncTotals(runId: number): SyncTotalsRow[] {
    return this.db
      .prepare(
        `SELECT server_id, count(DISTINCT wallet) AS wallets, sum(warmup = 0) AS counted, sum(warmup = 0 AND status = 'ok') AS ok,
                sum(warmup = 0 AND status <> 'ok') AS failed, sum(warmup = 0 AND mismatch IS NOT NULL) AS mismatched,
                sum(warmup = 1 AND status <> 'ok') AS warmupFailed
           FROM wallet_syncs WHERE run_id = ? GROUP BY server_id`,
      )
      .all(runId) as SyncTotalsRow[];
  }

  /** Failed syncs per server, error, step and wallet. */
  failedSyncs(runId: number): FailureRow[] {
    return this.db
      .prepare(
        `SELECT server_id, status, error_step, wallet, expected_txs, sum(warmup = 0) AS counted, sum(warmup = 1) AS warmup, min(error) AS example
           FROM wallet_syncs WHERE run_id = ? AND status <> 'ok'
          GROUP BY server_id, status, error_step, wallet ORDER BY server_id, status, error_step, expected_txs, wallet`,
      )
      .all(runId) as FailureRow[];
  }

  notifications(runId: number): NotificationRow[] {
    return this.db
      .prepare('SELECT server_id, kind, status, latency_ns, block_height FROM wallet_notifications WHERE run_id = ? ORDER BY server_id, kind')
      .all(runId) as NotificationRow[];
  }

  arrivals(runId: number): ArrivalRow[] {
    return this.db
      .prepare('SELECT server_id, status, lag_ms, duration_ns FROM wallet_syncs WHERE run_id = ? AND intended_ms IS NOT NULL ORDER BY server_id, id')
      .all(runId) as ArrivalRow[];
  }

  /** Counted ok syncs per server and wallet. */
  okSyncCounts(runId: number): Array<{ server_id: number; wallet: string; n: number }> {
    return this.db
      .prepare(`SELECT server_id, wallet, count(*) AS n FROM wallet_syncs WHERE run_id = ? AND warmup = 0 AND status = 'ok' GROUP BY server_id, wallet`)
      .all(runId) as Array<{ server_id: number; wallet: string; n: number }>;
  }

  /** The counted ok syncs' requests, streamed in sync, step and send order (memory stays flat). */
  stepRequests(runId: number): IterableIterator<StepRequestRow> {
    return this.db
      .prepare(
        `SELECT s.id AS sync, s.server_id AS server, s.wallet, q.step, q.items, q.bytes, q.offset_ns AS offset, q.latency_ns AS latency
           FROM wallet_syncs s JOIN wallet_requests q ON q.sync_id = s.id
          WHERE s.run_id = ? AND s.warmup = 0 AND s.status = 'ok'
          ORDER BY s.id, q.step, q.offset_ns`,
      )
      .iterate(runId) as IterableIterator<StepRequestRow>;
  }

  /** A run's process readings (not the host's), per target in time order. */
  resourceSeries(runId: number): ResourceSeriesRow[] {
    return this.db
      .prepare(
        `SELECT target, at_ms AS at, cpu_user_s + cpu_system_s AS cpu, rss_bytes AS rss, read_bytes AS rd, write_bytes AS wr
           FROM resource_samples WHERE run_id = ? AND build_id IS NULL AND target != 'host' AND cpu_user_s IS NOT NULL ORDER BY target, at_ms`,
      )
      .all(runId) as ResourceSeriesRow[];
  }

  resourceSummaries(runId: number): ResourceSummary[] {
    return resourceSummaries(this.db, { runId });
  }

  /** A wallet load's abuse per server and phase (migration 13); empty without --abuse. */
  abuse(runId: number): AbuseRecord[] {
    return new AbuseStore(this.store).read(runId);
  }
}
