/**
 * "Delta vs last round": two databases (e.g. two versions of one server), the latest completed run
 * of each, per-address medians matched by (server name, method, scripthash), and the change of the
 * median of those medians. Only addresses measured in both count, so a dataset that grew between
 * rounds does not show up as a speed change.
 */
import { medianOf as median } from './median';
import { loadModel } from './load';
import type { ReportModel } from './model';
import { fmtMs, markdownTable, Table } from './table';

export interface CompareRow {
  server: string;
  method: string;
  matched: number;
  a: number | null;
  b: number | null;
  changePct: number | null;
}

export interface Comparison {
  rows: CompareRow[];
  onlyA: string[]; // "server method" pairs measured in A only
  onlyB: string[];
}

const SEP = '\u0000';

function mediansByKey(model: ReportModel): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of model.points) if (p.medianMs !== null) m.set([p.server, p.method, p.scripthash].join(SEP), p.medianMs);
  return m;
}

function pairs(model: ReportModel): Set<string> {
  return new Set(model.points.map((p) => `${p.server} ${p.method}`));
}

export function compareModels(modelA: ReportModel, modelB: ReportModel): Comparison {
  const a = mediansByKey(modelA);
  const b = mediansByKey(modelB);
  const groups = new Map<string, { a: number[]; b: number[] }>();
  for (const [key, va] of a) {
    const vb = b.get(key);
    if (vb === undefined) continue;
    const [server, method] = key.split(SEP);
    const g = groups.get(server + SEP + method) ?? { a: [], b: [] };
    g.a.push(va);
    g.b.push(vb);
    groups.set(server + SEP + method, g);
  }
  const rows = [...groups.entries()]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([key, g]) => {
      const [server, method] = key.split(SEP);
      const ma = median(g.a.sort((x, y) => x - y));
      const mb = median(g.b.sort((x, y) => x - y));
      return { server, method, matched: g.a.length, a: ma, b: mb, changePct: ma && mb !== null ? ((mb - ma) / ma) * 100 : null };
    });
  const pa = pairs(modelA);
  const pb = pairs(modelB);
  return { rows, onlyA: [...pa].filter((k) => !pb.has(k)).sort(), onlyB: [...pb].filter((k) => !pa.has(k)).sort() };
}

export function compareDatabases(dbA: string, dbB: string): Comparison {
  return compareModels(loadModel(dbA), loadModel(dbB));
}

export function compareMarkdown(c: Comparison, dbA: string, dbB: string): string {
  const table: Table = {
    title: 'delta',
    head: ['server', 'method', 'addresses', 'A p50 ms', 'B p50 ms', 'change'],
    align: ['left', 'left', 'right', 'right', 'right', 'right'],
    rows: c.rows.map((r) => [
      r.server,
      r.method,
      String(r.matched),
      fmtMs(r.a),
      fmtMs(r.b),
      r.changePct === null ? '–' : `${r.changePct >= 0 ? '+' : ''}${r.changePct.toFixed(1)}%`,
    ]),
  };
  const lines = [
    `# Delta: B (${dbB}) vs A (${dbA})`,
    '',
    'p50 of the per-address medians over the addresses both databases measured (latest completed run of each); negative change = B is faster.',
    '',
    markdownTable(table),
  ];
  if (c.rows.length === 0) lines.push('', 'No (server, method, address) was measured in both databases.');
  if (c.onlyA.length) lines.push('', `Only in A: ${c.onlyA.join('; ')}.`);
  if (c.onlyB.length) lines.push('', `Only in B: ${c.onlyB.join('; ')}.`);
  return lines.join('\n') + '\n';
}
