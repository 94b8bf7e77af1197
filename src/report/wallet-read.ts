/**
 * Reads wallet runs (schema migration 7) into the wallet report model, read-only. Every figure is
 * computed here from the stored syncs, requests and notifications, with the one percentile
 * definition of src/stats/quantiles.ts; a run's summary_json is read only for what the rows do not
 * hold (how many wallets stayed held, the server's memory per held wallet).
 */
import type Database from 'better-sqlite3';
import type { ResultsStore } from '../store/results';
import { medianOf } from './median';
import { readStepMix } from './wallet-mix';
import { isObject, parseStoredJson } from './stored-json';
import { readStoppedAnswering } from '../core/stopped-answering';
import type {
  ArrivalStats,
  FailedSyncGroup,
  FailedSyncPoint,
  HeldSummary,
  NotificationKind,
  NotificationSeries,
  PollingSetup,
  ServerSyncTotals,
  WalletReport,
  WalletRunReport,
  WalletRunRow,
  WalletServerReport,
  WalletServerRow,
  WalletSyncPoint,
} from './wallet-model';

/** Runs whose syncs are final: a running run may still be written, a failed one broke off. */
export const FINISHED_WALLET_STATUSES: readonly string[] = ['completed', 'interrupted'];

/** Databases written before wallet workloads (schema migration 7) have no wallet tables. */
export function hasWalletTables(store: ResultsStore): boolean {
  return store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'wallet_runs'").get() !== undefined;
}

export function listWalletRuns(store: ResultsStore): WalletRunRow[] {
  return hasWalletTables(store) ? (store.db.prepare('SELECT * FROM wallet_runs ORDER BY id').all() as WalletRunRow[]) : [];
}

const numberOrNull = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);


function pollingOf(setupJson: string | null): PollingSetup | null {
  const setup = parseStoredJson(setupJson);
  if (!isObject(setup)) return null;
  const text = typeof setup.polling === 'string' ? setup.polling : null;
  const pollMs = numberOrNull(setup.pollMs);
  return text === null && pollMs === null ? null : { text, pollMs };
}

const byNumber = (a: number, b: number) => a - b;

function readPoints(db: Database.Database, runId: number, nameOf: Map<number, string>): WalletSyncPoint[] {
  const rows = db
    .prepare(
      `SELECT server_id, wallet, scripts, expected_txs, status, duration_ns FROM wallet_syncs
        WHERE run_id = ? AND warmup = 0 ORDER BY server_id, expected_txs, wallet, id`,
    )
    .all(runId) as Array<{ server_id: number; wallet: string; scripts: number; expected_txs: number; status: string; duration_ns: number }>;
  const points = new Map<string, WalletSyncPoint & { okMs: number[] }>();
  for (const r of rows) {
    const server = nameOf.get(r.server_id);
    if (server === undefined) continue;
    const key = `${r.server_id}\u0000${r.wallet}`;
    let p = points.get(key);
    if (!p) {
      p = { server, wallet: r.wallet, scripts: r.scripts, txs: r.expected_txs, nOk: 0, nFailed: 0, medianMs: null, minMs: null, maxMs: null, okMs: [] };
      points.set(key, p);
    }
    if (r.status === 'ok') p.okMs.push(r.duration_ns / 1e6);
    else p.nFailed++;
  }
  return [...points.values()].map(({ okMs, ...p }) => {
    okMs.sort(byNumber);
    return { ...p, nOk: okMs.length, medianMs: medianOf(okMs), minMs: okMs[0] ?? null, maxMs: okMs[okMs.length - 1] ?? null };
  });
}

function readTotals(db: Database.Database, runId: number, servers: WalletServerReport[]): ServerSyncTotals[] {
  const rows = db
    .prepare(
      `SELECT server_id, count(DISTINCT wallet) AS wallets, sum(warmup = 0) AS counted, sum(warmup = 0 AND status = 'ok') AS ok,
              sum(warmup = 0 AND status <> 'ok') AS failed, sum(warmup = 0 AND mismatch IS NOT NULL) AS mismatched,
              sum(warmup = 1 AND status <> 'ok') AS warmupFailed
         FROM wallet_syncs WHERE run_id = ? GROUP BY server_id`,
    )
    .all(runId) as Array<{ server_id: number } & Omit<ServerSyncTotals, 'server'>>;
  const byId = new Map(rows.map((r) => [r.server_id, r]));
  // A server with no sync at all still gets its row: the run was meant to measure it.
  return servers.map((s) => {
    const r = byId.get(s.record.id);
    return { server: s.name, wallets: r?.wallets ?? 0, counted: r?.counted ?? 0, ok: r?.ok ?? 0, failed: r?.failed ?? 0, mismatched: r?.mismatched ?? 0, warmupFailed: r?.warmupFailed ?? 0 };
  });
}

/** Failed syncs, grouped by server, error and step for the table, and by wallet too for the chart's crosses. */
function readFailures(db: Database.Database, runId: number, nameOf: Map<number, string>): { groups: FailedSyncGroup[]; points: FailedSyncPoint[] } {
  const rows = db
    .prepare(
      `SELECT server_id, status, error_step, wallet, expected_txs, sum(warmup = 0) AS counted, sum(warmup = 1) AS warmup, min(error) AS example
         FROM wallet_syncs WHERE run_id = ? AND status <> 'ok'
        GROUP BY server_id, status, error_step, wallet ORDER BY server_id, status, error_step, expected_txs, wallet`,
    )
    .all(runId) as Array<{ server_id: number; status: string; error_step: string | null; wallet: string; expected_txs: number; counted: number; warmup: number; example: string | null }>;
  const groups = new Map<string, FailedSyncGroup>();
  const points: FailedSyncPoint[] = [];
  for (const r of rows) {
    const server = nameOf.get(r.server_id);
    if (server === undefined) continue;
    if (r.counted > 0) points.push({ server, wallet: r.wallet, txs: r.expected_txs, category: r.status, step: r.error_step, count: r.counted });
    const key = `${r.server_id}\u0000${r.status}\u0000${r.error_step ?? ''}`;
    const g = groups.get(key);
    if (!g) {
      groups.set(key, { server, category: r.status, step: r.error_step, counted: r.counted, warmup: r.warmup, wallets: 1, minTxs: r.expected_txs, maxTxs: r.expected_txs, example: r.example });
      continue;
    }
    g.counted += r.counted;
    g.warmup += r.warmup;
    g.wallets++;
    g.minTxs = Math.min(g.minTxs, r.expected_txs);
    g.maxTxs = Math.max(g.maxTxs, r.expected_txs);
    g.example ??= r.example;
  }
  return { groups: [...groups.values()], points };
}

function readNotifications(db: Database.Database, runId: number, nameOf: Map<number, string>): NotificationSeries[] {
  const rows = db
    .prepare('SELECT server_id, kind, status, latency_ns, block_height FROM wallet_notifications WHERE run_id = ? ORDER BY server_id, kind')
    .all(runId) as Array<{ server_id: number; kind: NotificationKind; status: 'ok' | 'missing' | 'duplicate'; latency_ns: number | null; block_height: number }>;
  const series = new Map<string, NotificationSeries & { heights: Set<number> }>();
  for (const r of rows) {
    const server = nameOf.get(r.server_id);
    if (server === undefined) continue;
    const key = `${r.server_id}\u0000${r.kind}`;
    let s = series.get(key);
    if (!s) series.set(key, (s = { server, kind: r.kind, blocks: 0, expected: 0, heard: 0, missing: 0, duplicate: 0, latenciesMs: [], heights: new Set() }));
    s.heights.add(r.block_height);
    if (r.status === 'duplicate') {
      s.duplicate++;
    } else if (r.status === 'missing' || r.latency_ns === null) {
      s.expected++;
      s.missing++;
    } else {
      s.expected++;
      s.heard++;
      s.latenciesMs.push(r.latency_ns / 1e6);
    }
  }
  return [...series.values()].map(({ heights, ...s }) => ({ ...s, blocks: heights.size, latenciesMs: s.latenciesMs.sort(byNumber) }));
}

function readArrivals(db: Database.Database, runId: number, nameOf: Map<number, string>): ArrivalStats[] {
  const rows = db
    .prepare('SELECT server_id, status, lag_ms, duration_ns FROM wallet_syncs WHERE run_id = ? AND intended_ms IS NOT NULL ORDER BY server_id, id')
    .all(runId) as Array<{ server_id: number; status: string; lag_ms: number | null; duration_ns: number }>;
  const stats = new Map<number, ArrivalStats>();
  for (const r of rows) {
    const server = nameOf.get(r.server_id);
    if (server === undefined) continue;
    let s = stats.get(r.server_id);
    if (!s) stats.set(r.server_id, (s = { server, arrivals: 0, ok: 0, failed: 0, fromIntendedMs: [], lagMs: [] }));
    const lag = r.lag_ms ?? 0; // written with every arrival; absent only in a hand-made row
    s.arrivals++;
    s.lagMs.push(lag);
    if (r.status === 'ok') {
      s.ok++;
      s.fromIntendedMs.push(lag + r.duration_ns / 1e6);
    } else {
      s.failed++;
    }
  }
  return [...stats.values()].map((s) => ({ ...s, fromIntendedMs: s.fromIntendedMs.sort(byNumber), lagMs: s.lagMs.sort(byNumber) }));
}

function readHeld(run: WalletRunRow): HeldSummary[] {
  const summary = parseStoredJson(run.summary_json);
  const rows = isObject(summary) && Array.isArray(summary.servers) ? summary.servers.filter(isObject) : [];
  return rows
    .filter((r) => typeof r.server === 'string')
    .map((r) => ({
      server: r.server as string,
      held: numberOrNull(r.held),
      holdFailed: numberOrNull(r.holdFailed),
      holdSeconds: numberOrNull(r.holdSeconds),
      rssPerHeldKiB: numberOrNull(r.rssPerHeldKiB),
      stoppedAnswering: isObject(r.arrivals) ? readStoppedAnswering(r.arrivals.stoppedAnswering) : null,
    }));
}

export function readWalletRun(db: Database.Database, run: WalletRunRow): WalletRunReport {
  const records = db.prepare('SELECT * FROM wallet_servers WHERE run_id = ? ORDER BY id').all(run.id) as WalletServerRow[];
  const servers = records.map((record) => ({ name: record.name, record, polling: pollingOf(record.setup_json) }));
  const nameOf = new Map(records.map((r) => [r.id, r.name]));
  const failures = readFailures(db, run.id, nameOf);
  return {
    run,
    servers,
    totals: readTotals(db, run.id, servers),
    points: readPoints(db, run.id, nameOf),
    failures: failures.groups,
    failedPoints: failures.points,
    mix: readStepMix(db, run.id, nameOf),
    notifications: readNotifications(db, run.id, nameOf),
    arrivals: run.kind === 'load' ? readArrivals(db, run.id, nameOf) : [],
    held: run.kind === 'load' ? readHeld(run) : [],
  };
}

export function readWalletReport(store: ResultsStore, runs: readonly WalletRunRow[], chosen: WalletReport['chosen']): WalletReport {
  const reports = runs.map((r) => readWalletRun(store.db, r));
  return { chosen, runs: reports, servers: [...new Set(reports.flatMap((r) => r.servers.map((s) => s.name)))] };
}
