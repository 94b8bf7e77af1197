/**
 * Abuse beside a wallet load in the results database (migration 13): per run and server, the
 * profile, its window and the server's fate (abuse_runs); per phase, the ordinary syncs, the held
 * wallets' notifications and the server's process (abuse_phases). Written once the run has ended.
 */
import type { ResultsStore } from './results';

export type AbusePhase = 'before' | 'during' | 'after';

export interface AbusePhaseRecord {
  phase: AbusePhase;
  units: number;
  ok: number;
  errors: Record<string, number>;
  p50Ms: number | null;
  p99Ms: number | null;
  /** Null: no block mined in the run's phases. */
  notifications: { blocks: number; expected: number; ok: number; missing: number; p50Ms: number | null; p99Ms: number | null } | null;
  /** Null: the server's process was not sampled. */
  resources: { readings: number; gone: number; cpuShare: number | null; rssMaxBytes: number | null; threadsMax: number | null; fdsMax: number | null } | null;
}

export interface AbuseRecord {
  server: string;
  profile: string;
  spec: string;
  window: { fromMs: number; startMs: number; endMs: number; toMs: number };
  tally: Record<string, number>;
  answeredDuring: boolean;
  answeredAfter: boolean;
  stayedUp: boolean | null;
  recoveredAfterS: number | null;
  sampledTarget: string | null;
  notSampledWhy: string | null;
  notificationsWhy: string | null;
  phases: AbusePhaseRecord[];
}

interface RunRow {
  server: string;
  profile: string;
  spec: string;
  arrivals_start_ms: number;
  abuse_start_ms: number;
  abuse_end_ms: number;
  arrivals_end_ms: number;
  tally_json: string;
  answered_during: number;
  answered_after: number;
  stayed_up: number | null;
  recovered_after_s: number | null;
  sampled_target: string | null;
  not_sampled_why: string | null;
  notifications_why: string | null;
  server_id: number;
}

interface PhaseRow {
  server_id: number;
  phase: AbusePhase;
  units: number;
  ok: number;
  errors_json: string;
  p50_ms: number | null;
  p99_ms: number | null;
  blocks: number | null;
  notifications_expected: number | null;
  notifications_ok: number | null;
  notifications_missing: number | null;
  notify_p50_ms: number | null;
  notify_p99_ms: number | null;
  readings: number | null;
  gone: number | null;
  cpu_share: number | null;
  rss_max_bytes: number | null;
  threads_max: number | null;
  fds_max: number | null;
}

const bool = (v: boolean | null) => (v === null ? null : v ? 1 : 0);

export class AbuseStore {
  constructor(private readonly results: ResultsStore) {}

  private get db() {
    return this.results.db;
  }

  /** Every record of `runId`, one transaction; `serverIds` by server name, as the run made them. */
  add(runId: number, serverIds: Map<string, number>, records: AbuseRecord[]): void {
    if (records.length === 0) return;
    const run = this.db.prepare(`INSERT INTO abuse_runs (run_id, server_id, profile, spec, arrivals_start_ms, abuse_start_ms, abuse_end_ms, arrivals_end_ms, tally_json,
        answered_during, answered_after, stayed_up, recovered_after_s, sampled_target, not_sampled_why, notifications_why)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const phase = this.db.prepare(`INSERT INTO abuse_phases (run_id, server_id, phase, units, ok, errors_json, p50_ms, p99_ms, blocks, notifications_expected,
        notifications_ok, notifications_missing, notify_p50_ms, notify_p99_ms, readings, gone, cpu_share, rss_max_bytes, threads_max, fds_max)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.db.transaction(() => {
      for (const r of records) {
        const serverId = serverIds.get(r.server)!;
        const w = r.window;
        run.run(runId, serverId, r.profile, r.spec, w.fromMs, w.startMs, w.endMs, w.toMs, JSON.stringify(r.tally), bool(r.answeredDuring), bool(r.answeredAfter), bool(r.stayedUp), r.recoveredAfterS, r.sampledTarget, r.notSampledWhy, r.notificationsWhy);
        for (const p of r.phases) {
          const n = p.notifications;
          const res = p.resources;
          phase.run(runId, serverId, p.phase, p.units, p.ok, JSON.stringify(p.errors), p.p50Ms, p.p99Ms, n?.blocks ?? null, n?.expected ?? null, n?.ok ?? null, n?.missing ?? null, n?.p50Ms ?? null, n?.p99Ms ?? null, res?.readings ?? null, res?.gone ?? null, res?.cpuShare ?? null, res?.rssMaxBytes ?? null, res?.threadsMax ?? null, res?.fdsMax ?? null);
        }
      }
    })();
  }

  /** The run's records, its servers in the order they were made. */
  read(runId: number): AbuseRecord[] {
    const runs = this.db
      .prepare('SELECT a.*, s.name AS server FROM abuse_runs a JOIN run_servers s ON s.id = a.server_id WHERE a.run_id = ? ORDER BY a.server_id')
      .all(runId) as RunRow[];
    const phases = this.db.prepare(`SELECT * FROM abuse_phases WHERE run_id = ? ORDER BY server_id, CASE phase WHEN 'before' THEN 0 WHEN 'during' THEN 1 ELSE 2 END`).all(runId) as PhaseRow[];
    return runs.map((r) => ({
      server: r.server,
      profile: r.profile,
      spec: r.spec,
      window: { fromMs: r.arrivals_start_ms, startMs: r.abuse_start_ms, endMs: r.abuse_end_ms, toMs: r.arrivals_end_ms },
      tally: JSON.parse(r.tally_json) as Record<string, number>,
      answeredDuring: r.answered_during === 1,
      answeredAfter: r.answered_after === 1,
      stayedUp: r.stayed_up === null ? null : r.stayed_up === 1,
      recoveredAfterS: r.recovered_after_s,
      sampledTarget: r.sampled_target,
      notSampledWhy: r.not_sampled_why,
      notificationsWhy: r.notifications_why,
      phases: phases.filter((p) => p.server_id === r.server_id).map(phaseOf),
    }));
  }
}

function phaseOf(p: PhaseRow): AbusePhaseRecord {
  return {
    phase: p.phase,
    units: p.units,
    ok: p.ok,
    errors: JSON.parse(p.errors_json) as Record<string, number>,
    p50Ms: p.p50_ms,
    p99Ms: p.p99_ms,
    notifications:
      p.blocks === null ? null : { blocks: p.blocks, expected: p.notifications_expected!, ok: p.notifications_ok!, missing: p.notifications_missing!, p50Ms: p.notify_p50_ms, p99Ms: p.notify_p99_ms },
    resources: p.readings === null ? null : { readings: p.readings, gone: p.gone!, cpuShare: p.cpu_share, rssMaxBytes: p.rss_max_bytes, threadsMax: p.threads_max, fdsMax: p.fds_max },
  };
}
