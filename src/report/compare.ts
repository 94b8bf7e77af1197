/**
 * "Delta vs last round": two databases (e.g. two versions of one server), the latest completed run
 * of each, per-address medians matched by (server name, method, scripthash), and the change of
 * the median of those medians.
 */
import { median } from '../store/statistics';
import { loadModel, ReportModel } from './model';
import { fmtMs } from './tables';

export interface CompareRow {
  server: string;
  method: string;
  matched: number;
  a: number | null;
  b: number | null;
  changePct: number | null;
}

function byKey(model: ReportModel): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of model.points) if (p.medianMs !== null) m.set(`${p.server}\u0000${p.method}\u0000${p.scripthash}`, p.medianMs);
  return m;
}

export function compareDatabases(dbA: string, dbB: string): CompareRow[] {
  const a = byKey(loadModel(dbA));
  const b = byKey(loadModel(dbB));
  const groups = new Map<string, { a: number[]; b: number[] }>();
  for (const [key, va] of a) {
    const vb = b.get(key);
    if (vb === undefined) continue;
    const [server, method] = key.split('\u0000');
    const g = groups.get(`${server}\u0000${method}`) ?? { a: [], b: [] };
    g.a.push(va);
    g.b.push(vb);
    groups.set(`${server}\u0000${method}`, g);
  }
  return [...groups.entries()].sort().map(([key, g]) => {
    const [server, method] = key.split('\u0000');
    const ma = median(g.a.sort((x, y) => x - y));
    const mb = median(g.b.sort((x, y) => x - y));
    return { server, method, matched: g.a.length, a: ma, b: mb, changePct: ma && mb !== null ? ((mb - ma) / ma) * 100 : null };
  });
}

export function compareMarkdown(rows: CompareRow[], dbA: string, dbB: string): string {
  const lines = [
    `# Delta: ${dbB} vs ${dbA}`,
    '',
    'Median of per-address medians over the addresses both runs measured; negative change = faster.',
    '',
    '| server | method | addresses | A p50 ms | B p50 ms | change |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    const change = r.changePct === null ? '–' : `${r.changePct >= 0 ? '+' : ''}${r.changePct.toFixed(1)}%`;
    lines.push(`| ${r.server} | ${r.method} | ${r.matched} | ${fmtMs(r.a)} | ${fmtMs(r.b)} | ${change} |`);
  }
  if (rows.length === 0) lines.push('', 'No (server, method, address) appears in both databases.');
  return lines.join('\n') + '\n';
}
