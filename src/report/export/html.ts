/**
 * index.html: one self-contained page, charts inline as SVG and the font embedded, no script and
 * no network access, so it can be mailed, archived or opened offline and looks the same.
 */
import fs from 'node:fs';
import { FONT_FAMILY, FONT_FILES } from '../font';
import type { Table } from '../table';
import { reportTitle, type Exporter, type RenderedBench, type RenderedChart, type RenderedReport } from './exporter';
import { LOAD_NOTE } from '../load-tables';
import { WALLET_NOTE } from '../wallet-tables';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function htmlTable(t: Table, cls: string, heading: 'h2' | 'h3' = 'h2'): string {
  const cell = (tag: string, c: string, i: number) => `<${tag} class="${t.align[i]}">${esc(c)}</${tag}>`;
  return [
    `<${heading}>${esc(t.title)}</${heading}>`,
    ...(t.note ?? '').split('\n').filter(Boolean).map((line) => `<p class="note">${esc(line)}</p>`),
    `<table class="${cls}"><thead><tr>${t.head.map((h, i) => cell('th', h, i)).join('')}</tr></thead><tbody>`,
    ...t.rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`),
    '</tbody></table>',
  ].join('\n');
}

/** Several SVGs in one document share one id space: prefix each chart's ids (Vega's clip paths). */
function namespaceIds(svg: string, prefix: string): string {
  return svg.replace(/\bid="([^"]+)"/g, `id="${prefix}-$1"`).replace(/url\(#([^)]+)\)/g, `url(#${prefix}-$1)`).replace(/href="#([^"]+)"/g, `href="#${prefix}-$1"`);
}

function fontFace(): string {
  const b64 = fs.readFileSync(FONT_FILES.regular).toString('base64');
  return `@font-face { font-family: "${FONT_FAMILY}"; src: url(data:font/ttf;base64,${b64}) format("truetype"); }`;
}

function figure(c: RenderedChart): string {
  return (
    `<figure class="chart" id="${esc(c.def.id)}">${namespaceIds(c.svg, c.def.id)}<figcaption>${esc(c.def.title)} — ` +
    `<a href="${esc(c.def.id)}.svg">SVG</a> · <a href="${esc(c.def.id)}.png">PNG</a> · <a href="${esc(c.def.id)}.vl.json">Vega-Lite</a></figcaption></figure>`
  );
}

function benchSection(b: RenderedBench, dbPath: string): string {
  const runs = b.model.runs.map((run) => run.id).join(', ');
  return `<p class="note">From <code>${esc(dbPath)}</code>, run${b.model.runs.length > 1 ? 's' : ''} ${esc(runs)}. Latencies are medians per address over the counted passes; warm-up passes are excluded. Hover a point for its address.</p>
${htmlTable(b.tables.summary, 'summary')}
${b.tables.ab ? htmlTable(b.tables.ab, 'ab') : ''}
${b.tables.cold ? htmlTable(b.tables.cold, 'cold') : ''}
${b.tables.coldVerdicts ? htmlTable(b.tables.coldVerdicts, 'cold-verdicts') : ''}
${b.tables.transports ? htmlTable(b.tables.transports, 'transports') : ''}
${htmlTable(b.tables.limits, 'limits')}
<h2>Charts</h2>
<p class="note">Points: per-address medians, one colour per server; line: median of each log2 size bucket; band: best to worst address of the bucket. Red crosses in the lane under each plot: calls that failed or timed out, at the size of their address.${
    b.excludedServers.length ? ` The charts leave out ${esc(b.excludedServers.join(', '))} to zoom on the rest; the tables do not.` : ''
  }</p>
${b.charts.map(figure).join('\n')}
${htmlTable(b.tables.runs, 'runs')}
${htmlTable(b.tables.servers, 'servers')}
`;
}

function resourcesSection(r: RenderedReport): string {
  if (!r.resources) return '';
  return `<h2>Server resources</h2>
${r.resources.tables.map((t) => htmlTable(t, 'resources', 'h3')).join('\n')}
${r.resources.charts.map(figure).join('\n')}
`;
}

function limitsSection(r: RenderedReport): string {
  if (!r.limits) return '';
  return `<h2>Server limits</h2>
${r.limits.tables.map((t) => htmlTable(t, 'limits', 'h3')).join('\n')}
`;
}

function loadSection(r: RenderedReport): string {
  if (r.load.length === 0) return '';
  const intro = r.bench ? '' : `<p class="note">From <code>${esc(r.dbPath)}</code>.</p>\n`;
  return `${intro}<h2>Load runs</h2>
<p class="note">${esc(LOAD_NOTE)}</p>
${r.load.map((l) => `${htmlTable(l.table, 'load', 'h3')}\n${l.ab ? `${htmlTable(l.ab, 'ab', 'h3')}\n` : ''}${l.charts.map(figure).join('\n')}`).join('\n')}
`;
}

function walletSection(r: RenderedReport): string {
  if (!r.wallet) return '';
  const intro = r.bench || r.load.length ? '' : `<p class="note">From <code>${esc(r.dbPath)}</code>.</p>\n`;
  return `${intro}<h2>Wallet runs</h2>
<p class="note">${esc(WALLET_NOTE)}</p>
${r.wallet.sections.map((s) => [...s.tables.map((t) => htmlTable(t, 'wallet', 'h3')), ...s.charts.map(figure)].join('\n')).join('\n')}
`;
}

export function reportHtml(r: RenderedReport): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${reportTitle(r)}</title>
<style>
${fontFace()}
body { font-family: "${FONT_FAMILY}", sans-serif; margin: 2em; color: #222; max-width: 1400px; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 3px 8px; } th { background: #f4f4f4; }
.right { text-align: right; } .left { text-align: left; }
.note { color: #555; font-size: 13px; max-width: 60em; }
figure { margin: 2em 0; } figcaption { font-size: 12px; color: #555; }
</style></head><body>
<h1>${reportTitle(r)}</h1>
${r.bench ? benchSection(r.bench, r.dbPath) : ''}${loadSection(r)}${walletSection(r)}${resourcesSection(r)}${limitsSection(r)}</body></html>
`;
}

export const htmlExporter: Exporter = {
  name: 'html',
  fileNames: () => ['index.html'],
  serialize: (r) => [{ name: 'index.html', data: reportHtml(r) }],
};
