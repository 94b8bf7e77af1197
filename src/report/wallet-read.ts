/**
 * Reads wallet runs (through the store's one reader) into the wallet report model, read-only. Every figure is
 * computed here from the stored syncs, requests and notifications, with the one percentile
 * definition of src/stats/quantiles.ts; a run's summary_json is read only for what the rows do not
 * hold (how many wallets stayed held, the server's memory per held wallet).
 */
import { answeringOf } from '../core/answering';
import { readHeldReconnects } from '../core/held-reconnects';
import type { ResultsReader } from '../store/read';
import { medianOf } from './median';
import { readStepMix } from './wallet-mix';
import { isObject, parseStoredJson } from '../core/stored-json';
import { readStoppedAnswering } from '../core/stopped-answering';
import { findMaxOf } from './load-read';
import type { FindMaxResult } from './load-model';
import type {
  ArrivalStats,
  FailedSyncGroup,
  FailedSyncPoint,
  HeldSearchReport,
  HeldSummary,
  NotificationSeries,
  PollingSetup,
  ServerSyncTotals,
  WalletReport,
  WalletRunReport,
  WalletRunRow,
  WalletServerReport,
  WalletSyncPoint,
} from './wallet-model';

/** Runs whose syncs are final: a running run may still be written, a failed one broke off. */
export const FINISHED_WALLET_STATUSES: readonly string[] = ['completed', 'interrupted'];


const numberOrNull = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);


function pollingOf(setupJson: string | null): PollingSetup | null {
  const setup = parseStoredJson(setupJson);
  if (!isObject(setup)) return null;
  const text = typeof setup.polling === 'string' ? setup.polling : null;
  const pollMs = numberOrNull(setup.pollMs);
  return text === null && pollMs === null ? null : { text, pollMs };
}

const byNumber = (a: number, b: number) => a - b;

function readPoints(reader: ResultsReader, runId: number, nameOf: Map<number, string>): WalletSyncPoint[] {
  const rows = reader.countedSyncs(runId);
  const points = new Map<string, Omit<WalletSyncPoint, 'okSyncs'> & { okSyncs: Array<{ pass: number; ms: number }> }>();
  for (const r of rows) {
    const server = nameOf.get(r.server_id);
    if (server === undefined) continue;
    const key = `${r.server_id}\u0000${r.wallet}`;
    let p = points.get(key);
    if (!p) {
      p = { server, wallet: r.wallet, scripts: r.scripts, txs: r.expected_txs, nOk: 0, nFailed: 0, medianMs: null, minMs: null, maxMs: null, okSyncs: [] };
      points.set(key, p);
    }
    if (r.status === 'ok') p.okSyncs.push({ pass: r.pass, ms: r.duration_ns / 1e6 });
    else p.nFailed++;
  }
  return [...points.values()].map((p) => {
    p.okSyncs.sort((x, y) => x.pass - y.pass);
    const okMs = p.okSyncs.map((s) => s.ms).sort(byNumber);
    return { ...p, nOk: okMs.length, medianMs: medianOf(okMs), minMs: okMs[0] ?? null, maxMs: okMs[okMs.length - 1] ?? null };
  });
}

function readTotals(reader: ResultsReader, runId: number, servers: WalletServerReport[]): ServerSyncTotals[] {
  const rows = reader.syncTotals(runId);
  const byId = new Map(rows.map((r) => [r.server_id, r]));
  // A server with no sync at all still gets its row: the run was meant to measure it.
  return servers.map((s) => {
    const r = byId.get(s.record.id);
    return { server: s.name, wallets: r?.wallets ?? 0, counted: r?.counted ?? 0, ok: r?.ok ?? 0, failed: r?.failed ?? 0, mismatched: r?.mismatched ?? 0, warmupFailed: r?.warmupFailed ?? 0 };
  });
}

/** Failed syncs, grouped by server, error and step for the table, and by wallet too for the chart's crosses. */
function readFailures(reader: ResultsReader, runId: number, nameOf: Map<number, string>): { groups: FailedSyncGroup[]; points: FailedSyncPoint[] } {
  const rows = reader.failedSyncs(runId);
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

function readNotifications(reader: ResultsReader, runId: number, nameOf: Map<number, string>): NotificationSeries[] {
  const rows = reader.notifications(runId);
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

function readArrivals(reader: ResultsReader, runId: number, nameOf: Map<number, string>): ArrivalStats[] {
  const rows = reader.arrivals(runId);
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

/** The --find-max searches of a wallet load, from its summary. */
function findMaxOfSummary(run: WalletRunRow): FindMaxResult[] | null {
  const summary = parseStoredJson(run.summary_json);
  return isObject(summary) ? findMaxOf(summary.findMax ?? null) : null;
}

/** The --slo-notify searches of a wallet load, from its summary. */
function heldSearchesOf(run: WalletRunRow): HeldSearchReport[] | null {
  const summary = parseStoredJson(run.summary_json);
  const raw = isObject(summary) && Array.isArray(summary.findMaxHeld) ? summary.findMaxHeld : [];
  const found = raw.filter((e): e is HeldSearchReport => isObject(e) && typeof e.server === 'string' && Array.isArray(e.steps) && isObject(e.slo) && typeof e.slo.thresholdMs === 'number');
  return found.length ? found : null;
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
      arrivalsStoppedAnswering: isObject(r.arrivals) ? readStoppedAnswering(r.arrivals.stoppedAnswering) : null,
      ...('stoppedAnswering' in r ? { stoppedAnswering: readStoppedAnswering(r.stoppedAnswering) } : {}),
      reconnects: readHeldReconnects(r.reconnects),
    }));
}

export function readWalletRun(reader: ResultsReader, run: WalletRunRow): WalletRunReport {
  const records = reader.walletServers(run.id);
  // A wallet bench's servers: did each answer the syncs it was given (a wallet load's say it in its held summary).
  const outcomes = run.kind === 'bench' ? reader.walletSyncOutcomes(run.id) : undefined;
  const timeoutMs = (parseStoredJson(run.config_json) as { timeoutMs?: unknown } | null)?.timeoutMs;
  // Whether each stopped answering part-way: judged by the run on its syncs' times (stored since 2026-11-29).
  const summary = parseStoredJson(run.summary_json);
  const stopped = isObject(summary) && isObject(summary.stoppedAnswering) ? summary.stoppedAnswering : {};
  const servers = records.map((record) => ({
    name: record.name,
    record,
    polling: pollingOf(record.setup_json),
    answering: outcomes ? answeringOf(record.name, outcomes.get(record.id) ?? {}, { unit: 'wallet sync', timeoutMs: typeof timeoutMs === 'number' ? timeoutMs : undefined, stoppedAnswering: readStoppedAnswering(stopped[record.name]) }) : null,
  }));
  const nameOf = new Map(records.map((r) => [r.id, r.name]));
  const failures = readFailures(reader, run.id, nameOf);
  return {
    run,
    servers,
    totals: readTotals(reader, run.id, servers),
    points: readPoints(reader, run.id, nameOf),
    failures: failures.groups,
    failedPoints: failures.points,
    mix: readStepMix(reader, run.id, nameOf),
    notifications: readNotifications(reader, run.id, nameOf),
    arrivals: run.kind === 'load' ? readArrivals(reader, run.id, nameOf) : [],
    held: run.kind === 'load' ? readHeld(run) : [],
    findMax: run.kind === 'load' ? findMaxOfSummary(run) : null,
    findMaxHeld: run.kind === 'load' ? heldSearchesOf(run) : null,
    abuse: run.kind === 'load' ? reader.abuse(run.id) : [],
  };
}

export function readWalletReport(reader: ResultsReader, runs: readonly WalletRunRow[], chosen: WalletReport['chosen']): WalletReport {
  const reports = runs.map((r) => readWalletRun(reader, r));
  return { chosen, runs: reports, servers: [...new Set(reports.flatMap((r) => r.servers.map((s) => s.name)))] };
}
