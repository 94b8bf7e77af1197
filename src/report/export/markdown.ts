/** summary.md: the tables and the PNG charts, ready to paste into a written report. */
import { markdownTable, Table } from '../table';
import { LOAD_NOTE } from '../load-tables';
import { WALLET_NOTE } from '../wallet-tables';
import { reportTitle, type Exporter, type RenderedBench, type RenderedChart, type RenderedReport } from './exporter';

function section(t: Table, heading = '##'): string[] {
  return [`${heading} ${t.title}`, '', ...(t.note ? t.note.split('\n').flatMap((line) => [line, '']) : []), markdownTable(t), ''];
}

function chartLinks(c: RenderedChart, heading: string): string[] {
  return [`${heading} ${c.def.title}`, '', `![${c.def.title}](${c.def.id}.png)`, '', `SVG: [${c.def.id}.svg](${c.def.id}.svg) · Vega-Lite spec: [${c.def.id}.vl.json](${c.def.id}.vl.json)`, ''];
}

function benchMarkdown(b: RenderedBench, dbPath: string): string[] {
  const runs = b.model.runs.map((run) => run.id).join(', ');
  return [
    `From \`${dbPath}\`, run${b.model.runs.length > 1 ? 's' : ''} ${runs}. Latencies are medians per address over the counted passes; warm-up passes are excluded.`,
    '',
    ...section(b.tables.runs),
    ...section(b.tables.servers),
    ...section(b.tables.summary),
    ...(b.tables.ab ? section(b.tables.ab) : []),
    ...(b.tables.cold ? section(b.tables.cold) : []),
    ...(b.tables.coldVerdicts ? section(b.tables.coldVerdicts) : []),
    ...(b.tables.transports ? section(b.tables.transports) : []),
    ...section(b.tables.limits),
    '## Charts',
    '',
    'Points: per-address medians, one colour per server; line: median of each log2 size bucket; band: best to worst address of the bucket. ' +
      'Red crosses in the lane under each plot: calls that failed or timed out, at the size of their address.' +
      (b.excludedServers.length ? ` The charts leave out ${b.excludedServers.join(', ')} to zoom on the rest; the tables do not.` : ''),
    '',
    ...b.charts.flatMap((c) => chartLinks(c, '###')),
  ];
}

function loadMarkdown(r: RenderedReport): string[] {
  if (r.load.length === 0) return [];
  return [
    ...(r.bench ? [] : [`From \`${r.dbPath}\`.`, '']),
    '## Load runs',
    '',
    LOAD_NOTE,
    '',
    ...r.load.flatMap((l) => [...section(l.table, '###'), ...(l.ab ? section(l.ab, '###') : []), ...l.charts.flatMap((c) => chartLinks(c, '####'))]),
  ];
}

function walletMarkdown(r: RenderedReport): string[] {
  if (!r.wallet) return [];
  return [
    ...(r.bench || r.load.length ? [] : [`From \`${r.dbPath}\`.`, '']),
    '## Wallet runs',
    '',
    WALLET_NOTE,
    '',
    ...r.wallet.sections.flatMap((s) => [...s.tables.flatMap((t) => section(t, '###')), ...s.charts.flatMap((c) => chartLinks(c, '####'))]),
  ];
}

function resourcesMarkdown(r: RenderedReport): string[] {
  if (!r.resources) return [];
  return ['## Server resources', '', ...r.resources.tables.flatMap((t) => section(t, '###')), ...r.resources.charts.flatMap((c) => chartLinks(c, '###'))];
}

function limitsMarkdown(r: RenderedReport): string[] {
  if (!r.limits) return [];
  return ['## Server limits', '', ...r.limits.tables.flatMap((t) => section(t, '###'))];
}

export function summaryMarkdown(r: RenderedReport): string {
  return [
    `# ${reportTitle(r)}`,
    '',
    ...(r.bench ? benchMarkdown(r.bench, r.dbPath) : []),
    ...loadMarkdown(r),
    ...walletMarkdown(r),
    ...resourcesMarkdown(r),
    ...limitsMarkdown(r),
  ].join('\n');
}

export const markdownExporter: Exporter = {
  name: 'markdown',
  fileNames: () => ['summary.md'],
  serialize: (r) => [{ name: 'summary.md', data: summaryMarkdown(r) }],
};
