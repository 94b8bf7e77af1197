/**
 * Reads the selected runs of a results database into a ReportModel, in one pass and read-only.
 * Statistics come from the tables the bench runner derived (medians, summaries); only the error
 * categories per address are read from the samples, since medians keep just a failure count.
 */
import { ResultsStore, RunRecord } from '../store/results';
import { UserError } from '../core/user-error';
import type { ErrorPoint, MedianPoint, ReportMethod, ReportModel, ReportServer, SummaryRow } from './model';

const ms = (ns: number | null) => (ns === null ? null : ns / 1e6);

export interface ModelOptions {
  runIds?: number[];
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
        const label = runs.length > 1 ? `${record.name} (${sweptSetting(run.config_json) ?? `run ${run.id}`})` : record.name;
        servers.push({ label, run, record });
      }
    }
    if (servers.length === 0) throw new UserError(`--run: run ${runs.map((r) => r.id).join(', ')} of ${dbPath} has no servers`);
    const labelOf = new Map(servers.map((s) => [s.record.id, s.label]));
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
        `SELECT s.server_id, s.method, s.address_idx, s.status, count(*) AS n, a.address, a.scripthash, a.tx_count, a.utxo_count
         FROM samples s JOIN addresses a ON a.run_id = s.run_id AND a.idx = s.address_idx
         WHERE s.${inRuns} AND s.warmup = 0 AND s.status <> 'ok'
         GROUP BY s.server_id, s.method, s.address_idx, s.status
         ORDER BY s.server_id, s.method, s.address_idx, s.status`,
      )
      .all(...runIds) as Array<Record<string, number | string | null>>;
    for (const r of errorRows) {
      const server = labelOf.get(r.server_id as number);
      if (!server) continue;
      errors.push({
        server,
        method: r.method as ReportMethod,
        addressIdx: r.address_idx as number,
        scripthash: r.scripthash as string,
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
    if (points.length === 0) {
      throw new UserError(`--run: run ${runs.map((r) => r.id).join(', ')} of ${dbPath} has no per-address medians (status ${runs.map((r) => r.status).join(', ')}); finish it with npm run bench -- --resume`);
    }
    return { dbPath, runs, servers, points, errors, summaries };
  } finally {
    store.close();
  }
}

/** The server setting a run of a `--param` sweep was measured with, as `NAME=VALUE`. */
function sweptSetting(configJson: string): string | null {
  try {
    const settings = (JSON.parse(configJson) as { serverSettings?: Record<string, string> }).serverSettings;
    return settings && Object.keys(settings).length ? Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(' ') : null;
  } catch {
    return null;
  }
}
