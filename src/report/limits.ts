/**
 * The limits part of a report: the latest limits run, one table per server — each limit's value
 * served (or "none up to N tried"), what the server did past it and how long until it served again.
 */
import { LIMIT_TABLE_HEAD, limitRow } from '../core/limit-text';
import { LimitStore, type LimitsServerFindings } from '../store/limit-results';
import type { ResultsStore } from '../store/results';
import type { Table } from './table';

export interface LimitsReport {
  runId: number;
  status: string;
  /** The user said they operate the servers (probed off this machine). */
  operates: boolean;
  servers: LimitsServerFindings[];
}

export function readLatestLimitsRun(store: ResultsStore): LimitsReport | null {
  const limits = new LimitStore(store);
  const run = limits.run();
  if (!run) return null;
  const config = JSON.parse(run.config_json) as { operates?: boolean };
  return { runId: run.number, status: run.status, operates: config.operates === true, servers: limits.findings(run.id) };
}

export function limitsTables(r: LimitsReport): Table[] {
  const head = [...LIMIT_TABLE_HEAD];
  const status = r.status === 'completed' ? '' : ` (${r.status}: what it found before it ended)`;
  return r.servers.map((s) => ({
    title: `Limits of ${s.server} — limits run ${r.runId}${status}`,
    note:
      `${s.url}${r.operates ? ', probed with --i-operate-this-server' : ''}. "Served up to": the largest amount answered normally, or none met up to the largest tried; ` +
      '"past it": what the server did beyond it; "serving again after": from then until a new connection was served normally.',
    head,
    align: head.map(() => 'left' as const),
    rows: s.findings.map(limitRow),
  }));
}
