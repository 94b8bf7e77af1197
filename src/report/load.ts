/**
 * Reads the selected runs of a results database into a ReportModel, in one pass and read-only.
 * Statistics come from the tables the bench runner derived (medians, summaries); only the error
 * categories per address are read from the samples, since medians keep just a failure count.
 */
import { benchAnswering } from '../store/answering';
import { ResultsStore, RunRecord } from '../store/results';
import { ResultsReader } from '../store/read';
import { UserError } from '../core/user-error';
import { benchBaselineOf } from '../core/ab-setup';
import { benchAbComparison, readBenchRun } from '../verdicts/bench';
import { coldVerdicts } from '../verdicts/cold';
import type { ErrorPoint, MedianPoint, ReportMethod, ReportModel, ReportServer, SummaryRow, ColdRow } from './model';

const ms = (ns: number | null) => (ns === null ? null : ns / 1e6);

export interface ModelOptions {
  runIds?: number[];
}

export function selectRuns(store: ResultsStore, runIds: number[] | undefined, dbPath: string): RunRecord[] {
  const all = new ResultsReader(store).benchRuns();
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

/** `open`: a store already open on dbPath, left open; otherwise one is opened and closed here. */
export function loadModel(dbPath: string, opts: ModelOptions = {}, open?: ResultsStore): ReportModel {
  const store = open ?? ResultsStore.open(dbPath, { readonly: true });
  try {
    const runs = selectRuns(store, opts.runIds, dbPath);
    const reader = new ResultsReader(store);
    const servers: ReportServer[] = [];
    for (const run of runs) {
      const records = reader.benchServers(run.id);
      const answering = new Map(benchAnswering(store, run.id, records.map((r) => r.name), timeoutOf(run.config_json)).map((a) => [a.server, a]));
      for (const record of records) {
        const label = runs.length > 1 ? `${record.name} (${sweptSetting(run.config_json) ?? `run ${run.id}`})` : record.name;
        servers.push({ label, run, record, answering: answering.get(record.name) });
      }
    }
    if (servers.length === 0) throw new UserError(`--run: run ${runs.map((r) => r.id).join(', ')} of ${dbPath} has no servers`);
    const labelOf = new Map(servers.map((s) => [s.record.id, s.label]));
    const runIds = runs.map((r) => r.id);

    /** Rows of the runs' servers, each with its server's label (a row of another server is not the report's). */
    const labelled = <R extends { server_id: number }, T>(rows: R[], make: (r: R, server: string) => T): T[] =>
      rows.flatMap((r) => {
        const server = labelOf.get(r.server_id);
        return server ? [make(r, server)] : [];
      });

    const points: MedianPoint[] = labelled(reader.medians(runIds), (r, server) => ({
      server,
      method: r.method as ReportMethod,
      addressIdx: r.address_idx,
      address: r.address,
      scripthash: r.scripthash,
      type: r.type,
      txCount: r.tx_count,
      utxoCount: r.utxo_count,
      txBytes: r.tx_bytes,
      medianMs: ms(r.median_ns),
      nOk: r.n_ok,
      nError: r.n_error,
    }));

    const errors: ErrorPoint[] = labelled(reader.errorsPerAddress(runIds), (r, server) => ({
      server,
      method: r.method as ReportMethod,
      addressIdx: r.address_idx,
      scripthash: r.scripthash,
      txCount: r.tx_count,
      utxoCount: r.utxo_count,
      txBytes: r.tx_bytes,
      address: r.address,
      category: r.status,
      count: r.n,
    }));

    const summaries: SummaryRow[] = labelled(reader.summaries(runIds), (r, server) => ({
      server,
      method: r.method as ReportMethod,
      n: r.n,
      nOk: r.n_ok,
      p50Ms: ms(r.p50_ns),
      p90Ms: ms(r.p90_ns),
      p99Ms: ms(r.p99_ns),
      maxMs: ms(r.max_ns),
      errors: JSON.parse(r.errors_json) as Record<string, number>,
    }));
    const cold: ColdRow[] = labelled(reader.coldSummaries(runIds), (r, server) => ({
      server,
      method: r.method as ReportMethod,
      warmP50Ms: ms(r.warm_p50_ns),
      coldP50Ms: ms(r.p50_ns),
      n: r.n,
      nOk: r.n_ok,
      coldMaxMs: ms(r.max_ns),
      errors: JSON.parse(r.errors_json) as Record<string, number>,
      firstTouches: r.first_touches,
      firstTouchSumMs: r.first_touch_sum_ns / 1e6,
      warmMedianSumMs: r.warm_median_sum_ns / 1e6,
      warmMeanSumMs: r.warm_mean_sum_ns === null ? null : r.warm_mean_sum_ns / 1e6,
    }));
    // Read from the samples only for a cold run: a large warm run's samples are not scanned for none.
    const coldJudged = cold.length
      ? coldVerdicts(
          reader.firstTouches(runIds).flatMap((p) => {
            const server = labelOf.get(p.serverId);
            return server ? [{ server, pass: p.pass, coldNs: p.coldNs, warm: p.warm }] : [];
          }),
        )
      : [];
    if (points.length === 0) {
      throw new UserError(`--run: run ${runs.map((r) => r.id).join(', ')} of ${dbPath} has no per-address medians (status ${runs.map((r) => r.status).join(', ')}); finish it with npm run bench -- --resume`);
    }
    // A run recorded as an A/B comparison (`bench --baseline`) is reported with its verdicts.
    const baseline = runs.length === 1 ? benchBaselineOf(runs[0].config_json) : undefined;
    const ab = baseline !== undefined ? benchAbComparison(readBenchRun(reader, runs[0])) : undefined;
    return { dbPath, runs, servers, points, errors, summaries, cold, coldVerdicts: coldJudged, ...(baseline !== undefined ? { baseline } : {}), ...(ab ? { ab } : {}) };
  } finally {
    if (!open) store.close();
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

/** The call timeout a bench run was stored with (said with its timeouts); undefined for a config without one. */
function timeoutOf(configJson: string): number | undefined {
  try {
    const t = (JSON.parse(configJson) as { timeoutMs?: unknown }).timeoutMs;
    return typeof t === 'number' ? t : undefined;
  } catch {
    return undefined;
  }
}
