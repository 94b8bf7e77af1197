/**
 * The wallet load's part of the shard merge (src/runs/merge.ts, which checks the shards are one
 * whole test, sets the status and writes in one transaction): the shards of one coordinated wallet
 * load put back into one run, as if one generator had held every wallet: each shard's syncs (with
 * their requests) and notifications under the merged run's servers, the seconds of every segment
 * added second by second (the exact HDR merge a request load's shards use), and each server's
 * summary added up: the wallets held, the arrivals, and the notifications over every shard's held
 * connections.
 */
import { sortedLine } from '../core/percentile-line';
import { percentile } from '../core/quantiles';
import type { FinalStatus } from '../core/run-status';
import type { Shard } from '../core/shard';
import { readStoppedAnswering, stoppedAnsweringAll } from '../core/stopped-answering';
import { readHeldReconnects, type HeldReconnects } from '../core/held-reconnects';
import { unionOfOutages } from '../core/outages';
import type { ResultsStore } from '../store/results';
import { ResultsReader } from '../store/read';
import { WalletStore, type WalletRunRow } from '../store/wallets';
import { LoadStore } from '../store/load-results';
import { alignedSeconds, sumSecond } from '../engine/sinks/merge-intervals';
import type { NotifyStats, ServerLoadSummary } from './load';

/** A wallet load's shard as the merge reads it. */
export interface WalletShard {
  file: string;
  results: ResultsStore;
  run: WalletRunRow;
  shard: Shard;
  /** The servers the run measured, in its order (a shard whose process died has no summary, but its servers). */
  servers: string[];
  summaries: ServerLoadSummary[];
  setups: Record<string, unknown>;
}

/** The wallet load runs of a database, in the order they were made. */
export const walletRuns = (results: ResultsStore): WalletRunRow[] => new ResultsReader(results).walletRuns().filter((r) => r.kind === 'load');

/** A wallet run's shard, which only its config records: `I/N`, or null. */
export function walletShardText(run: WalletRunRow): string | null {
  const shard = (parseObject(run.config_json) as { shard?: unknown }).shard;
  return typeof shard === 'string' ? shard : null;
}

/** What the merge reads of a wallet shard's run, beside its run record: each server's summary and setup. */
export function walletShard(file: string, results: ResultsStore, run: WalletRunRow, shard: Shard): WalletShard {
  const summary = parseObject(run.summary_json);
  const summaries = Array.isArray(summary.servers) ? (summary.servers as ServerLoadSummary[]) : [];
  const servers = new ResultsReader(results).walletServers(run.id).map((s) => s.name);
  return { file, results, run, shard, servers, summaries, setups: parseObject(JSON.stringify(summary.setups ?? {})) };
}

/** Why two wallet shards stored before test identities are not one test: another workload, or other servers. */
export function walletShardsDiffer(first: WalletShard, other: WalletShard): string | undefined {
  const names = (s: WalletShard) => s.servers.join(', ');
  if (other.run.workload !== first.run.workload) return `merge: ${other.file} ran the ${other.run.workload} workload, ${first.file} the ${first.run.workload}`;
  if (names(other) !== names(first)) return `merge: ${other.file} measured ${names(other) || 'no server'} but ${first.file} measured ${names(first) || 'none'}`;
  return undefined;
}

function parseObject(text: string | null): Record<string, unknown> {
  try {
    const v = JSON.parse(text ?? 'null') as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What the merged rows say of one server: its arrivals' times, and its notifications. */
interface ServerRows {
  fromIntendedMs: number[];
  lagMs: number[];
  notifications: { headers: { expected: number; ok: number; missing: number; duplicate: number; ms: number[] }; scripthash: { expected: number; ok: number; missing: number; duplicate: number; ms: number[] } };
}

/** What the merge tells the wallet part: the test's status and the config to store. */
export interface WalletMerge {
  status: FinalStatus;
  tool: { version: string; gitCommit: string | null };
  config: Record<string, unknown>;
  /** What the caller records with the merged run (a coordinated test's start skew), in its summary too. */
  extra: Record<string, unknown>;
}

/**
 * The merged wallet load run written into `results` (inside the merge's transaction) from
 * `shards` (shard 1 first): every sync and notification, every second summed, each server's summary.
 */
export function writeWalletMerge(results: ResultsStore, shards: WalletShard[], merge: WalletMerge): { runId: number; summaries: ServerLoadSummary[]; setups: Record<string, unknown> } {
  const [first] = shards;
  const { servers } = first;
  const store = new WalletStore(results);
  const seconds = new LoadStore(results);
  const firstServers = new ResultsReader(first.results).walletServers(first.run.id);
  const { runId, serverIds } = store.createRun(
    {
      kind: 'load',
      tool_version: merge.tool.version,
      git_commit: merge.tool.gitCommit,
      config: { ...parseObject(first.run.config_json), shard: undefined, ...merge.config },
      workload: first.run.workload,
      wallets_path: first.run.wallets_path,
      wallets_hash: first.run.wallets_hash,
      passes: null,
      warmup: null,
    },
    firstServers.map((s) => ({ name: s.name, profile: s.profile, url: s.url, software: s.software, protocol: s.protocol, setup: s.setup_json === null ? undefined : JSON.parse(s.setup_json) })),
  );
  const rows = new Map<string, ServerRows>(
    servers.map((name) => [name, { fromIntendedMs: [], lagMs: [], notifications: { headers: tally(), scripthash: tally() } }]),
  );
  for (const shard of shards) {
    const from = new WalletStore(shard.results);
    for (const { server, record } of from.syncRecords(shard.run.id)) {
      store.addSync(runId, { ...record, serverId: serverIds.get(server)! });
      const r = rows.get(server)!;
      if (record.intendedMs !== undefined) {
        r.lagMs.push(record.lagMs ?? 0);
        if (record.status === 'ok') r.fromIntendedMs.push((record.lagMs ?? 0) + Number(record.durationNs) / 1e6);
      }
    }
    const notifications = from.notificationRecords(shard.run.id);
    store.addNotifications(runId, notifications.map(({ server, record }) => ({ ...record, serverId: serverIds.get(server)! })));
    for (const { server, record } of notifications) {
      const t = rows.get(server)!.notifications[record.kind];
      t.expected++;
      t[record.status]++;
      if (record.status === 'ok' && record.latencyNs !== null) t.ms.push(Number(record.latencyNs) / 1e6);
    }
  }
  // Every segment's seconds, added up by the epoch second they started in (one schedule clock).
  for (const name of servers) {
    const streams = shards.map((s) => {
      const serverRow = new ResultsReader(s.results).walletServers(s.run.id).find((x) => x.name === name)!;
      return { source: `${s.file} wallet run ${s.run.number}`, it: new LoadStore(s.results).intervals(s.run.id, serverRow.id) };
    });
    let start: number | undefined;
    for (const { second, records } of alignedSeconds(streams)) {
      start ??= second;
      const rec = sumSecond(name, second - start, second, records);
      seconds.addInterval(runId, serverIds.get(name)!, rec, rec.step);
    }
  }
  const summaries = servers.map((name) => mergedSummary(name, shards, rows.get(name)!));
  const setups = first.setups;
  store.finishRun(runId, merge.status, { servers: summaries, setups, ...merge.extra });
  return { runId, summaries, setups };
}

/** Failures by category, added over the shards. */
function addedFailures(parts: Array<Record<string, number>>): Record<string, number> {
  const failures: Record<string, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p)) failures[k] = (failures[k] ?? 0) + v;
  return failures;
}

const tally = () => ({ expected: 0, ok: 0, missing: 0, duplicate: 0, ms: [] as number[] });

/**
 * One server's summary over every shard: wallets held and syncs added, the arrivals' percentiles
 * and the notifications' from the merged rows (held connections of every shard). Memory per held
 * wallet is left out: each shard saw the server's RSS grow with the other shards' wallets too.
 */
function mergedSummary(server: string, shards: WalletShard[], rows: ServerRows): ServerLoadSummary {
  const parts = shards.map((s) => s.summaries.find((x) => x.server === server)).filter((x): x is ServerLoadSummary => x !== undefined);
  const sum = (pick: (p: ServerLoadSummary) => number) => parts.reduce((t, p) => t + pick(p), 0);
  const arriving = parts.map((p) => p.arrivals).filter((a): a is NonNullable<ServerLoadSummary['arrivals']> => a !== null);
  let arrivals: ServerLoadSummary['arrivals'] = null;
  if (arriving.length) {
    const failures = addedFailures(arriving.map((a) => a.failures));
    const line = sortedLine(rows.fromIntendedMs.sort((a, b) => a - b));
    arrivals = {
      intended: arriving.reduce((t, a) => t + a.intended, 0),
      synced: arriving.reduce((t, a) => t + a.synced, 0),
      failed: arriving.reduce((t, a) => t + a.failed, 0),
      failures,
      notStarted: arriving.reduce((t, a) => t + a.notStarted, 0),
      answeredRate: Math.round(arriving.reduce((t, a) => t + (a.answeredRate ?? 0), 0) * 10) / 10,
      p50Ms: line.p50,
      p90Ms: line.p90,
      p99Ms: line.p99,
      lagP99Ms: percentile(rows.lagMs.sort((a, b) => a - b), 0.99),
      stoppedAnswering: stoppedAnsweringAll(arriving.map((a) => readStoppedAnswering(a.stoppedAnswering))),
      generator: {
        bound: arriving.some((a) => a.generator.bound),
        reasons: arriving.flatMap((a, i) => a.generator.reasons.map((r) => `shard ${i + 1}: ${r}`)),
      },
    };
  }
  const notifying = parts.map((p) => p.notify).filter((n): n is NotifyStats => n !== null);
  const kind = (k: 'headers' | 'scripthash') => {
    const t = rows.notifications[k];
    const line = sortedLine(t.ms.sort((a, b) => a - b));
    return { expected: t.expected, ok: t.ok, missing: t.missing, duplicate: t.duplicate, p50Ms: line.p50, p90Ms: line.p90, p99Ms: line.p99, maxMs: line.max };
  };
  const notify: NotifyStats | null = notifying.length
    ? {
        blocks: Math.max(...notifying.map((n) => n.blocks)),
        headers: kind('headers'),
        scripthash: kind('scripthash'),
        // Shard 1 mined: its calls are the test's.
        mineCallMs: notifying[0].mineCallMs,
        loopDelayP99Ms: Math.max(...notifying.map((n) => n.loopDelayP99Ms)),
      }
    : null;
  return {
    server,
    held: sum((p) => p.held),
    holdFailed: sum((p) => p.holdFailed),
    // Known by category only if every shard kept them so (shards stored before did not).
    ...(parts.every((p) => p.holdFailures) ? { holdFailures: addedFailures(parts.map((p) => p.holdFailures!)) } : {}),
    holdSeconds: Math.max(0, ...parts.map((p) => p.holdSeconds)),
    // Over the whole run, of the shards that synced anything; shards stored before it was kept say nothing of it.
    ...(parts.every((p) => p.stoppedAnswering !== undefined)
      ? { stoppedAnswering: stoppedAnsweringAll(parts.filter((p) => p.held + p.holdFailed + (p.arrivals?.intended ?? 0) > 0).map((p) => readStoppedAnswering(p.stoppedAnswering))) }
      : {}),
    rssPerHeldKiB: null,
    arrivals,
    notify,
    reconnects: mergedReconnects(parts.map((p) => readHeldReconnects(p.reconnects))),
    loopDelayP99Ms: Math.max(0, ...parts.map((p) => p.loopDelayP99Ms)),
  };
}

/**
 * The shards' held connections lost and held again, added; the outages they saw joined into one
 * list. A median of medians is no median: with losses on more than one shard only the longest way
 * back is kept.
 */
function mergedReconnects(all: Array<HeldReconnects | null>): HeldReconnects | null {
  const parts = all.filter((r): r is HeldReconnects => r !== null);
  if (!parts.length) return null;
  const sum = (k: 'lost' | 'reheld' | 'stillLost' | 'failedAttempts') => parts.reduce((t, r) => t + r[k], 0);
  const losing = parts.filter((r) => r.lost > 0);
  const maxes = losing.map((r) => r.reholdMaxMs).filter((m): m is number => m !== null);
  return {
    lost: sum('lost'),
    reheld: sum('reheld'),
    stillLost: sum('stillLost'),
    reholdP50Ms: losing.length === 1 ? losing[0].reholdP50Ms : null,
    reholdMaxMs: maxes.length ? Math.max(...maxes) : null,
    failedAttempts: sum('failedAttempts'),
    outages: unionOfOutages(parts.flatMap((r) => r.outages)),
  };
}
