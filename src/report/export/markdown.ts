/** summary.md: the tables and the PNG charts, ready to paste into a written report. */
import { markdownTable, Table } from '../table';
import type { Exporter, RenderedReport } from './exporter';

function section(t: Table): string[] {
  return [`## ${t.title}`, '', ...(t.note ? [t.note, ''] : []), markdownTable(t), ''];
}

export function summaryMarkdown(r: RenderedReport): string {
  const runs = r.model.runs.map((run) => run.id).join(', ');
  return [
    '# Electrum server latency report',
    '',
    `From \`${r.model.dbPath}\`, run${r.model.runs.length > 1 ? 's' : ''} ${runs}. Latencies are medians per address over the counted passes; warm-up passes are excluded.`,
    '',
    ...section(r.tables.runs),
    ...section(r.tables.servers),
    ...section(r.tables.summary),
    '## Charts',
    '',
    'Points: per-address medians, one colour per server; line: median of each log2 size bucket; band: best to worst address of the bucket. ' +
      'Red crosses in the lane under each plot: calls that failed or timed out, at the size of their address.' +
      (r.excludedServers.length ? ` The charts leave out ${r.excludedServers.join(', ')} to zoom on the rest; the tables do not.` : ''),
    '',
    ...r.charts.flatMap((c) => [`### ${c.def.title}`, '', `![${c.def.title}](${c.def.id}.png)`, '', `SVG: [${c.def.id}.svg](${c.def.id}.svg) · Vega-Lite spec: [${c.def.id}.vl.json](${c.def.id}.vl.json)`, '']),
  ].join('\n');
}

export const markdownExporter: Exporter = {
  name: 'markdown',
  fileNames: () => ['summary.md'],
  serialize: (r) => [{ name: 'summary.md', data: summaryMarkdown(r) }],
};
