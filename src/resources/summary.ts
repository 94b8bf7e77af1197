/**
 * What a run cost each sampled server, as printed after a run and drawn in the report: CPU-seconds
 * (and per 1,000 requests), peak RSS, disk bytes read and written (and read per request), and the
 * data directory at the start and the end.
 */
import type { ResourceSummary } from '../store/resources';
import { textTable } from '../core/text-table';

export interface CostRow extends ResourceSummary {
  requests: number | null; // requests the run sent to the servers this process serves
}

const MiB = 1024 * 1024;
const mib = (b: number | null) => (b === null ? '–' : `${(b / MiB).toFixed(1)} MiB`);
const num = (v: number | null, digits: number) => (v === null ? '–' : v.toFixed(digits));

export function costTable(rows: CostRow[]): string {
  const head = ['process', 'seconds', 'CPU s', 'CPU s / 1k req', 'peak RSS', 'disk read', 'read / req', 'disk write', 'datadir start → end'];
  const body = rows.map((r) => [
    r.target,
    num(r.seconds, 1),
    num(r.cpuSeconds, 2),
    r.requests && r.cpuSeconds !== null ? ((r.cpuSeconds / r.requests) * 1000).toFixed(3) : '–',
    mib(r.peakRssBytes),
    mib(r.readBytes),
    r.requests && r.readBytes !== null ? `${Math.round(r.readBytes / r.requests)} B` : '–',
    mib(r.writeBytes),
    r.datadirStartBytes === null ? '–' : `${mib(r.datadirStartBytes)} → ${mib(r.datadirEndBytes)}`,
  ]);
  return textTable(head, body);
}
