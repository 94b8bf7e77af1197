/**
 * Derived statistics of a run, recomputed from its samples (warm-up passes excluded): the median of
 * each (server, method, address) and the latency distribution of each (server, method), over the
 * warm passes; a run with cold passes (`bench --cold`) has the cold passes' distribution beside it.
 * Errors are counted by category next to the latencies, never folded into them.
 *
 * Computed in bounded memory however many samples a run holds: counts and errors are SQL
 * aggregates, per-address medians a window query written straight back by SQLite (its sorter
 * spills to disk), and percentiles are picked from one sorted stream of latencies. Percentiles and
 * medians follow the one definition in src/core/quantiles.ts (nearest rank), and the line of them
 * src/core/percentile-line.ts (p99.9 only over 1,000 samples).
 */
import type { ResultsStore } from './results';
import { StreamingQuantiles } from '../core/quantiles';
import { LINE_QUANTILES, percentileLine } from '../core/percentile-line';

export interface MethodSummary {
  serverId: number;
  method: string;
  n: number;
  nOk: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
  mismatches: number;
  errors: Record<string, number>;
}

export function computeStatistics(store: ResultsStore, runId: number): MethodSummary[] {
  store.flush();
  const { db } = store;
  // better-sqlite3 builds SQLite with temporary storage in memory: the sorts below would then hold
  // every sample in RAM. On disk, SQLite's external sort keeps memory flat.
  db.pragma('temp_store = FILE');
  const summaries = summarized(store, runId, 'warm');
  const cold = summarized(store, runId, 'cold');

  db.transaction(() => {
    db.prepare('DELETE FROM medians WHERE run_id = ?').run(runId);
    db.prepare('DELETE FROM summaries WHERE run_id = ?').run(runId);
    db.prepare('DELETE FROM cold_summaries WHERE run_id = ?').run(runId);
    // The median's rank is ceil(n / 2) = (n + 1) / 2 in integer division: nearest rank, as above.
    // One pass over the samples, ok calls ranked among themselves: a join of two grouped subqueries
    // of an unindexed table let SQLite's planner choose a nested loop (37 s for 18,000 samples).
    db.prepare(
      `INSERT INTO medians (run_id, server_id, method, address_idx, median_ns, n_ok, n_error)
       SELECT @run, server_id, method, address_idx, max(CASE WHEN ok AND r = (n_ok + 1) / 2 THEN latency_ns END), max(n_ok), sum(NOT ok)
       FROM (SELECT server_id, method, address_idx, latency_ns, status = 'ok' AS ok,
                    row_number() OVER (PARTITION BY server_id, method, address_idx, status = 'ok' ORDER BY latency_ns) AS r,
                    sum(status = 'ok') OVER (PARTITION BY server_id, method, address_idx) AS n_ok
             FROM samples WHERE run_id = @run AND ${COUNTED.warm})
       GROUP BY server_id, method, address_idx`,
    ).run({ run: runId });
    const addSummary = db.prepare('INSERT INTO summaries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const s of summaries.values()) {
      addSummary.run(runId, s.serverId, s.method, s.n, s.nOk, s.p50, s.p90, s.p99, s.p999, s.max, s.mismatches, JSON.stringify(s.errors));
    }
    if (cold.size === 0) return;
    const firsts = new Map<string, { calls: number; touchSum: number; meanSum: number; medianSum: number }>();
    for (const t of firstTouches(store, runId)) {
      const k = key(t.serverId, t.method);
      const f = firsts.get(k) ?? { calls: 0, touchSum: 0, meanSum: 0, medianSum: 0 };
      f.calls++;
      f.touchSum += t.coldNs;
      f.meanSum += warmMeanNs(t);
      f.medianSum += t.warmMedianNs;
      firsts.set(k, f);
    }
    const addCold = db.prepare(
      `INSERT INTO cold_summaries (run_id, server_id, method, n, n_ok, p50_ns, p90_ns, p99_ns, max_ns, errors_json, first_touches, first_touch_sum_ns, warm_median_sum_ns, warm_mean_sum_ns)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const [k, s] of cold) {
      const t = firsts.get(k);
      addCold.run(runId, s.serverId, s.method, s.n, s.nOk, s.p50, s.p90, s.p99, s.max, JSON.stringify(s.errors), t?.calls ?? 0, t?.touchSum ?? 0, t?.medianSum ?? 0, t ? Math.round(t.meanSum) : 0);
    }
  })();
  return [...summaries.values()];
}

/** The counted calls of each temperature: warm-up never; cold passes only under `cold` (every pass of a run without --cold is warm). */
const COUNTED = { warm: 'warmup = 0 AND cold = 0', cold: 'warmup = 0 AND cold = 1' } as const;

const key = (serverId: number, method: string) => `${serverId}\u0000${method}`;

/** One address's first touch in a cold pass, beside the same call warm. */
export interface FirstTouch {
  serverId: number;
  method: string;
  /** The cold pass. */
  pass: number;
  /** The first touch's latency. */
  coldNs: number;
  /** The same call (server, method, address) in each counted warm pass that answered it: pass → latency. */
  warm: Map<number, number>;
  /** The same call's warm median over the counted warm passes. */
  warmMedianNs: number;
}

/** The mean of a first touch's warm calls. */
export const warmMeanNs = (t: { warm: ReadonlyMap<number, number> }): number => [...t.warm.values()].reduce((sum, v) => sum + v, 0) / t.warm.size;

/**
 * Each address's first touch in each cold pass (the first call its server's process got for it
 * after the restart, by start time: Esplora's Electrum port and REST API are one process, whose
 * index the first of them read), where it was answered and some counted warm pass answered the
 * same call too, with those warm calls. A server of no known process (setup_json without one) is a
 * process of its own.
 *
 * Beside the warm calls' mean, not their median: with two warm passes the median is the faster of
 * them, so a first touch beside it came out slower on average with no cold cost at all.
 */
export function firstTouches(store: ResultsStore, runId: number): FirstTouch[] {
  const warmPasses = (store.db.prepare(`SELECT DISTINCT pass FROM samples WHERE run_id = ? AND ${COUNTED.warm}`).all(runId) as Array<{ pass: number }>).map((r) => r.pass);
  if (warmPasses.length === 0) return [];
  // The warm passes listed, so that each warm call is found by the samples' unique key.
  const rows = store.db
    .prepare(
      `WITH ranked AS (
         SELECT s.server_id, s.method, s.address_idx, s.pass, s.latency_ns, s.status,
                row_number() OVER (PARTITION BY coalesce(json_extract(rs.setup_json, '$.process'), '#' || s.server_id), s.pass, s.address_idx ORDER BY s.at_ms, s.id) AS nth
         FROM samples s JOIN run_servers rs ON rs.id = s.server_id
         WHERE s.run_id = @run AND ${COUNTED.cold})
       SELECT r.server_id AS serverId, r.method, r.pass, r.address_idx AS address, r.latency_ns AS coldNs, w.pass AS warmPass, w.latency_ns AS warmNs, m.median_ns AS warmMedianNs
       FROM ranked r
       JOIN samples w ON w.run_id = @run AND w.server_id = r.server_id AND w.pass IN (${warmPasses.map(Number).join(', ')}) AND w.address_idx = r.address_idx AND w.method = r.method
                     AND w.warmup = 0 AND w.cold = 0 AND w.status = 'ok'
       JOIN medians m ON m.run_id = @run AND m.server_id = r.server_id AND m.method = r.method AND m.address_idx = r.address_idx
       WHERE r.nth = 1 AND r.status = 'ok' AND m.median_ns IS NOT NULL
       ORDER BY r.server_id, r.method, r.pass, r.address_idx, w.pass`,
    )
    .all({ run: runId }) as Array<{ serverId: number; method: string; pass: number; address: number; coldNs: number; warmPass: number; warmNs: number; warmMedianNs: number }>;
  const touches = new Map<string, FirstTouch>();
  for (const r of rows) {
    const k = `${r.serverId}/${r.pass}/${r.address}`;
    let t = touches.get(k);
    if (!t) {
      t = { serverId: r.serverId, method: r.method, pass: r.pass, coldNs: r.coldNs, warm: new Map(), warmMedianNs: r.warmMedianNs };
      touches.set(k, t);
    }
    t.warm.set(r.warmPass, r.warmNs);
  }
  return [...touches.values()];
}

/** Each (server, method)'s counts, errors and percentile line over the counted calls of one temperature. */
function summarized(store: ResultsStore, runId: number, temperature: keyof typeof COUNTED): Map<string, MethodSummary> {
  const { db } = store;
  const counted = COUNTED[temperature];
  const groups = db
    .prepare(
      `SELECT server_id AS serverId, method, count(*) AS n, sum(status = 'ok') AS nOk, sum(coalesce(mismatch, 0)) AS mismatches
       FROM samples WHERE run_id = ? AND ${counted} GROUP BY server_id, method ORDER BY server_id, method`,
    )
    .all(runId) as Array<{ serverId: number; method: string; n: number; nOk: number; mismatches: number }>;
  const summaries = new Map<string, MethodSummary>();
  const pickers = new Map<string, StreamingQuantiles>();
  for (const g of groups) {
    const k = key(g.serverId, g.method);
    summaries.set(k, { ...g, p50: null, p90: null, p99: null, p999: null, max: null, errors: {} });
    pickers.set(k, new StreamingQuantiles(g.nOk, LINE_QUANTILES));
  }

  const errorRows = db
    .prepare(
      `SELECT server_id, method, status, count(*) AS n FROM samples
       WHERE run_id = ? AND ${counted} AND status != 'ok' GROUP BY server_id, method, status`,
    )
    .all(runId) as Array<{ server_id: number; method: string; status: string; n: number }>;
  for (const e of errorRows) summaries.get(key(e.server_id, e.method))!.errors[e.status] = e.n;

  const sorted = db
    .prepare(
      `SELECT server_id, method, latency_ns FROM samples
       WHERE run_id = ? AND ${counted} AND status = 'ok' ORDER BY server_id, method, latency_ns`,
    )
    .raw();
  for (const [serverId, method, latency] of sorted.iterate(runId) as IterableIterator<[number, string, number]>) {
    pickers.get(key(serverId, method))!.push(latency);
  }
  for (const [k, s] of summaries) {
    const p = pickers.get(k)!;
    const line = percentileLine(p.n, (q) => p.values[LINE_QUANTILES.indexOf(q as (typeof LINE_QUANTILES)[number])], p.max);
    ({ p50: s.p50, p90: s.p90, p99: s.p99, p999: s.p999, max: s.max } = line);
  }
  return summaries;
}

/** A (server, method)'s cold passes beside its warm ones (`bench --cold`), as stored in `cold_summaries`. */
export interface ColdSummary {
  serverId: number;
  method: string;
  n: number;
  nOk: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  errors: Record<string, number>;
  /** The warm counted passes' median (summaries.p50_ns). */
  warmP50: number | null;
  /**
   * First touches: per cold pass and address, the first call its server got for it after the
   * restart (where that was this method, answered, and answered in a warm pass too:
   * firstTouches); their latencies summed, and the warm medians of the same calls summed.
   */
  firstTouches: number;
  firstTouchSumNs: number;
  warmMedianSumNs: number;
  /** Each of the same calls' mean over the warm passes, summed (firstTouches); null for runs stored before schema 14. */
  warmMeanSumNs: number | null;
}

/** The run's cold figures beside its warm ones; none for a run without cold passes. */
export function coldSummaries(store: ResultsStore, runId: number): ColdSummary[] {
  const rows = store.db
    .prepare(
      `SELECT c.server_id AS serverId, c.method, c.n, c.n_ok AS nOk, c.p50_ns AS p50, c.p90_ns AS p90, c.p99_ns AS p99, c.max_ns AS max, c.errors_json,
              s.p50_ns AS warmP50, c.first_touches AS firstTouches, c.first_touch_sum_ns AS firstTouchSumNs, c.warm_median_sum_ns AS warmMedianSumNs,
              c.warm_mean_sum_ns AS warmMeanSumNs
       FROM cold_summaries c LEFT JOIN summaries s ON s.run_id = c.run_id AND s.server_id = c.server_id AND s.method = c.method
       WHERE c.run_id = ? ORDER BY c.server_id, c.method`,
    )
    .all(runId) as Array<Omit<ColdSummary, 'errors'> & { errors_json: string }>;
  return rows.map(({ errors_json, ...r }) => ({ ...r, errors: JSON.parse(errors_json) as Record<string, number> }));
}
