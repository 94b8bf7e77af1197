import type { ReportModel } from '../model';
import { fmtErrors, fmtMs, TableRow } from '../tables';
import { Exporter, writeOutput } from './exporter';

export function summaryTableMarkdown(rows: TableRow[], baseline?: string): string {
  const head = ['server', 'method', 'n', 'ok', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', baseline ? `p50 ÷ ${baseline}` : null, 'slope ms/100'].filter(
    (h): h is string => h !== null,
  );
  const body = rows.map((r) =>
    [
      r.server,
      r.method,
      String(r.n),
      String(r.ok),
      fmtMs(r.p50),
      fmtMs(r.p90),
      fmtMs(r.p99),
      fmtMs(r.max),
      fmtErrors(r.errors),
      baseline ? (r.ratioToBaseline === null ? '–' : `${r.ratioToBaseline.toFixed(2)}×`) : null,
      r.slopeMsPer100 === null ? '–' : r.slopeMsPer100.toFixed(3),
    ].filter((c): c is string => c !== null),
  );
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i < 2 ? '---' : '---:'))), ...body.map(line)].join('\n');
}

export function runsMarkdown(model: ReportModel): string {
  const lines = ['| run | started | status | dataset | passes (warm-up) | generator event-loop p99 |', '| --- | --- | --- | --- | --- | --- |'];
  for (const r of model.runs) {
    const check = r.selfcheck_json ? (JSON.parse(r.selfcheck_json) as { eventLoopDelayMs?: { p99: number } }) : null;
    const p99 = check?.eventLoopDelayMs ? `${check.eventLoopDelayMs.p99} ms` : '–';
    lines.push(`| ${r.id} | ${r.started_at} | ${r.status} | ${r.dataset_id} (${r.dataset_lines} addresses) | ${r.passes} (${r.warmup}) | ${p99} |`);
  }
  lines.push('', '| server | software | protocol | URL |', '| --- | --- | --- | --- |');
  for (const s of model.servers) lines.push(`| ${s.label} | ${s.record.software ?? '–'} | ${s.record.protocol ?? '–'} | ${s.record.url} |`);
  return lines.join('\n');
}

export const markdownExporter: Exporter = {
  name: 'markdown',
  write: ({ model, charts, rows, baseline, outDir }) => {
    const text = [
      '# Electrum server latency report',
      '',
      'Latencies are per-address medians over the counted passes (warm-up excluded); the slope is a least-squares fit of',
      'median latency against the address size (transactions, or UTXOs for listunspent), in ms per 100.',
      '',
      '## Runs',
      '',
      runsMarkdown(model),
      '',
      '## Summary',
      '',
      summaryTableMarkdown(rows, baseline),
      '',
      '## Charts',
      '',
      ...charts.flatMap((c) => [`### ${c.def.title}`, '', `![${c.def.title}](${c.def.id}.png)`, '']),
    ].join('\n');
    return [writeOutput(outDir, 'summary.md', text)];
  },
};
