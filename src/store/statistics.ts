/**
 * Derived statistics of a run, recomputed from its samples (warm-up passes excluded): the median of
 * each (server, method, address) and the latency distribution of each (server, method).
 * Errors are counted by category next to the latencies, never folded into them.
 */
import type { ResultsStore } from './results';

/** Nearest-rank percentile of an ascending array (q in 0..1). */
export function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(sorted: number[]): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  return n % 2 === 1 ? sorted[(n - 1) / 2] : Math.round((sorted[n / 2 - 1] + sorted[n / 2]) / 2);
}

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

interface CountedSample {
  server_id: number;
  method: string;
  address_idx: number;
  latency_ns: number;
  status: string;
  mismatch: number | null;
}

export function computeStatistics(store: ResultsStore, runId: number): MethodSummary[] {
  store.flush();
  const rows = store.db
    .prepare(
      `SELECT server_id, method, address_idx, latency_ns, status, mismatch FROM samples
       WHERE run_id = ? AND warmup = 0 ORDER BY server_id, method, address_idx`,
    )
    .all(runId) as CountedSample[];

  const perAddress = new Map<string, { serverId: number; method: string; idx: number; ok: number[]; errors: number }>();
  const perMethod = new Map<string, { serverId: number; method: string; ok: number[]; n: number; mismatches: number; errors: Record<string, number> }>();
  for (const r of rows) {
    const ak = `${r.server_id}\u0000${r.method}\u0000${r.address_idx}`;
    let a = perAddress.get(ak);
    if (!a) perAddress.set(ak, (a = { serverId: r.server_id, method: r.method, idx: r.address_idx, ok: [], errors: 0 }));
    const mk = `${r.server_id}\u0000${r.method}`;
    let m = perMethod.get(mk);
    if (!m) perMethod.set(mk, (m = { serverId: r.server_id, method: r.method, ok: [], n: 0, mismatches: 0, errors: {} }));
    m.n++;
    if (r.mismatch) m.mismatches++;
    if (r.status === 'ok') {
      a.ok.push(r.latency_ns);
      m.ok.push(r.latency_ns);
    } else {
      a.errors++;
      m.errors[r.status] = (m.errors[r.status] ?? 0) + 1;
    }
  }

  const summaries: MethodSummary[] = [];
  store.db.transaction(() => {
    store.db.prepare('DELETE FROM medians WHERE run_id = ?').run(runId);
    store.db.prepare('DELETE FROM summaries WHERE run_id = ?').run(runId);
    const addMedian = store.db.prepare('INSERT INTO medians VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const a of perAddress.values()) {
      a.ok.sort((x, y) => x - y);
      addMedian.run(runId, a.serverId, a.method, a.idx, median(a.ok), a.ok.length, a.errors);
    }
    const addSummary = store.db.prepare('INSERT INTO summaries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const m of perMethod.values()) {
      m.ok.sort((x, y) => x - y);
      const s: MethodSummary = {
        serverId: m.serverId,
        method: m.method,
        n: m.n,
        nOk: m.ok.length,
        p50: percentile(m.ok, 0.5),
        p90: percentile(m.ok, 0.9),
        p99: percentile(m.ok, 0.99),
        p999: percentile(m.ok, 0.999),
        max: m.ok.length ? m.ok[m.ok.length - 1] : null,
        mismatches: m.mismatches,
        errors: m.errors,
      };
      summaries.push(s);
      addSummary.run(runId, s.serverId, s.method, s.n, s.nOk, s.p50, s.p90, s.p99, s.p999, s.max, s.mismatches, JSON.stringify(s.errors));
    }
  })();
  return summaries;
}
