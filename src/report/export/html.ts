import { fmtErrors, fmtMs } from '../tables';
import { Exporter, writeOutput } from './exporter';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One self-contained page: charts inline as SVG, tables, no script and no network access. */
export const htmlExporter: Exporter = {
  name: 'html',
  write: ({ model, charts, rows, baseline, outDir }) => {
    const head = ['server', 'method', 'n', 'ok', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', ...(baseline ? [`p50 ÷ ${baseline}`] : []), 'slope ms/100'];
    const body = rows
      .map((r) => {
        const cells = [r.server, r.method, r.n, r.ok, fmtMs(r.p50), fmtMs(r.p90), fmtMs(r.p99), fmtMs(r.max), fmtErrors(r.errors)];
        if (baseline) cells.push(r.ratioToBaseline === null ? '–' : `${r.ratioToBaseline.toFixed(2)}×`);
        cells.push(r.slopeMsPer100 === null ? '–' : r.slopeMsPer100.toFixed(3));
        return `<tr>${cells.map((c) => `<td>${esc(String(c))}</td>`).join('')}</tr>`;
      })
      .join('\n');
    const servers = model.servers
      .map((s) => `<li><b>${esc(s.label)}</b>: ${esc(s.record.software ?? '?')}, protocol ${esc(s.record.protocol ?? '?')}, ${esc(s.record.url)}</li>`)
      .join('\n');
    const runs = model.runs.map((r) => `run ${r.id} (${esc(r.status)}, ${r.passes} passes, ${r.warmup} warm-up, dataset ${esc(r.dataset_id)})`).join('; ');
    const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Electrum server latency report</title>
<style>
body { font-family: "DejaVu Sans", sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; } td, th { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
td:first-child, td:nth-child(2), th { text-align: left; } figure { margin: 2em 0; }
</style></head><body>
<h1>Electrum server latency report</h1>
<p>${runs}</p>
<ul>${servers}</ul>
<h2>Summary</h2>
<table class="summary"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${body}
</tbody></table>
<h2>Charts</h2>
${charts.map((c) => `<figure class="chart" id="${c.def.id}">${c.svg}<figcaption>${esc(c.def.title)}</figcaption></figure>`).join('\n')}
</body></html>
`;
    return [writeOutput(outDir, 'index.html', page)];
  },
};
