/**
 * The report model, built once from a results database: every per-address median with its
 * address's size, every counted error, the stored summaries, and the runs' metadata. Charts,
 * tables and exporters all read this model; none of them touches the database.
 */
import { ResultsStore, RunRecord, ServerRecord } from '../store/results';
import { UserError } from '../user-error';

export type ReportMethod = 'balance' | 'history' | 'utxos';

export interface MedianPoint {
  server: string;
  method: ReportMethod;
  addressIdx: number;
  address: string | null;
  scripthash: string;
  type: string;
  txCount: number;
  utxoCount: number;
  medianMs: number | null; // null when every counted pass of this address failed
  nOk: number;
  nError: number;
}

export interface ErrorPoint {
  server: string;
  method: ReportMethod;
  txCount: number;
  utxoCount: number;
  address: string | null;
  category: string;
  count: number;
}

export interface SummaryRow {
  server: string;
  method: ReportMethod;
  n: number;
  nOk: number;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  errors: Record<string, number>;
}

export interface ReportServer {
  label: string;
  run: RunRecord;
  record: ServerRecord;
}

export interface ReportModel {
  dbPath: string;
  runs: RunRecord[];
  servers: ReportServer[]; // in a stable order: the colour order of every chart
  points: MedianPoint[];
  errors: ErrorPoint[];
  summaries: SummaryRow[];
}

const ms = (ns: number | null) => (ns === null ? null : ns / 1e6);

export interface ModelOptions {
  runIds?: number[];
  excludeServers?: string[];
}

export function selectRuns(store: ResultsStore, runIds: number[] | undefined, dbPath: string): RunRecord[] {
  const all = store.listRuns();
  if (runIds && runIds.length > 0) {
    return runIds.map((id) => {
      const run = all.find((r) => r.id === id);
      if (!run) throw new UserError(`--run: no run ${id} in ${dbPath} (runs: ${all.map((r) => r.id).join(', ') || 'none'})`);
      return run;
    });
  }
  const completed = all.filter((r) => r.status === 'completed');
  if (completed.length === 0) throw new UserError(`--db: ${dbPath} has no completed run; name one with --run ID`);
  return [completed[completed.length - 1]];
}

export function loadModel(dbPath: string, opts: ModelOptions = {}): ReportModel {
  const store = ResultsStore.open(dbPath, { readonly: true });
  try {
    const runs = selectRuns(store, opts.runIds, dbPath);
    const servers: ReportServer[] = [];
    for (const run of runs) {
      for (const record of store.servers(run.id)) {
        const label = runs.length > 1 ? `${record.name} (run ${run.id})` : record.name;
        servers.push({ label, run, record });
      }
    }
    const exclude = new Set(opts.excludeServers ?? []);
    for (const name of exclude) {
      if (!servers.some((s) => s.record.name === name || s.label === name)) {
        throw new UserError(`--exclude-server: no server named ${name} in the selected runs (${servers.map((s) => s.label).join(', ')})`);
      }
    }
    const kept = servers.filter((s) => !exclude.has(s.record.name) && !exclude.has(s.label));
    const labelOf = new Map(kept.map((s) => [s.record.id, s.label]));
    const runIds = runs.map((r) => r.id);
    const inRuns = `run_id IN (${runIds.map(() => '?').join(',')})`;

    const points: MedianPoint[] = [];
    const pointRows = store.db
      .prepare(
        `SELECT m.server_id, m.method, m.address_idx, m.median_ns, m.n_ok, m.n_error,
                a.address, a.scripthash, a.type, a.tx_count, a.utxo_count
         FROM medians m JOIN addresses a ON a.run_id = m.run_id AND a.idx = m.address_idx
         WHERE m.${inRuns} ORDER BY m.server_id, m.method, m.address_idx`,
      )
      .all(...runIds) as Array<Record<string, number | string | null>>;
    for (const r of pointRows) {
      const server = labelOf.get(r.server_id as number);
      if (!server) continue;
      points.push({
        server,
        method: r.method as ReportMethod,
        addressIdx: r.address_idx as number,
        address: r.address as string | null,
        scripthash: r.scripthash as string,
        type: r.type as string,
        txCount: r.tx_count as number,
        utxoCount: r.utxo_count as number,
        medianMs: ms(r.median_ns as number | null),
        nOk: r.n_ok as number,
        nError: r.n_error as number,
      });
    }

    const errors: ErrorPoint[] = [];
    const errorRows = store.db
      .prepare(
        `SELECT s.server_id, s.method, s.status, count(*) AS n, a.address, a.tx_count, a.utxo_count
         FROM samples s JOIN addresses a ON a.run_id = s.run_id AND a.idx = s.address_idx
         WHERE s.${inRuns} AND s.warmup = 0 AND s.status <> 'ok'
         GROUP BY s.server_id, s.method, s.address_idx, s.status`,
      )
      .all(...runIds) as Array<Record<string, number | string | null>>;
    for (const r of errorRows) {
      const server = labelOf.get(r.server_id as number);
      if (!server) continue;
      errors.push({
        server,
        method: r.method as ReportMethod,
        txCount: r.tx_count as number,
        utxoCount: r.utxo_count as number,
        address: r.address as string | null,
        category: r.status as string,
        count: r.n as number,
      });
    }

    const summaries: SummaryRow[] = [];
    const summaryRows = store.db
      .prepare(`SELECT * FROM summaries WHERE ${inRuns} ORDER BY server_id, method`)
      .all(...runIds) as Array<Record<string, number | string | null>>;
    for (const r of summaryRows) {
      const server = labelOf.get(r.server_id as number);
      if (!server) continue;
      summaries.push({
        server,
        method: r.method as ReportMethod,
        n: r.n as number,
        nOk: r.n_ok as number,
        p50Ms: ms(r.p50_ns as number | null),
        p90Ms: ms(r.p90_ns as number | null),
        p99Ms: ms(r.p99_ns as number | null),
        maxMs: ms(r.max_ns as number | null),
        errors: JSON.parse(r.errors_json as string) as Record<string, number>,
      });
    }
    return { dbPath, runs, servers: kept, points, errors, summaries };
  } finally {
    store.close();
  }
}
