/**
 * Time to synced wallet vs wallet size, the wallet-level twin of the address charts: per server, each
 * wallet's median time to synced over its counted ok syncs (a point, joined by a line in size order),
 * with a bar from its fastest to its slowest sync. Under the plot an error lane, one row per server,
 * puts a red cross at the size of every wallet whose syncs failed, so a failing server is visible,
 * never just a missing line. Both axes are logarithmic: wallet sizes and times span decades.
 */
import type { WalletReport, WalletRunReport } from '../wallet-model';
import { fmtMs } from '../table';
import { ERROR_COLOUR } from './palette';
import { latencyScale, sizeScale } from './scales';
import { only, serverColour, Spec, walletSpec } from './wallet-chart';

const PLOT = { width: 640, height: 340 };
const LANE_ROW = 18;

function laneTitle(r: WalletRunReport): string {
  const byServer = new Map<string, Map<string, number>>();
  for (const p of r.failedPoints) {
    const what = `${p.category}${p.step ? ` in ${p.step}` : ''}`;
    const tally = byServer.get(p.server) ?? new Map<string, number>();
    tally.set(what, (tally.get(what) ?? 0) + p.count);
    byServer.set(p.server, tally);
  }
  const warmup = r.failures.reduce((n, f) => n + f.warmup, 0);
  const more = warmup > 0 ? ` (and ${warmup} in warm-up passes)` : '';
  if (byServer.size === 0) return `failed syncs: none${more}`;
  const parts = [...byServer].map(([server, tally]) => `${server}: ${[...tally].map(([what, n]) => `${n} ${what}`).join(', ')}`);
  return `failed syncs (red crosses) — ${parts.join('; ')}${more}`;
}

export function syncTimeSpec(report: WalletReport, r: WalletRunReport, title: string): Spec {
  const servers = r.servers.map((s) => s.name);
  const values: Spec[] = [];
  const sizes: number[] = [];
  const times: number[] = [];
  for (const p of r.points) {
    if (p.medianMs === null) continue; // every counted sync failed: drawn as crosses in the lane
    sizes.push(p.txs);
    times.push(p.minMs!, p.maxMs!);
    values.push({
      layer: 'wallet',
      server: p.server,
      txs: p.txs,
      ms: p.medianMs,
      lo: p.minMs,
      hi: p.maxMs,
      label: `${p.server}: ${p.wallet}, ${p.txs} txs, ${p.scripts} scripts — median ${fmtMs(p.medianMs)} ms over ${p.nOk} ok syncs (${fmtMs(p.minMs)}–${fmtMs(p.maxMs)})${p.nFailed ? `, ${p.nFailed} failed` : ''}`,
    });
  }
  for (const f of r.failedPoints) {
    sizes.push(f.txs);
    values.push({ layer: 'failed', server: f.server, txs: f.txs, label: `${f.server}: ${f.wallet}, ${f.txs} txs — ${f.count} × ${f.category}${f.step ? ` in ${f.step}` : ''}` });
  }
  const xs = sizeScale(sizes, true);
  const ys = latencyScale(times, true);
  const x = (axis: Spec = {}): Spec => ({ field: 'txs', type: 'quantitative', title: 'wallet size (transactions, log)', scale: xs.scale, axis: xs.ticks ? { values: xs.ticks, ...axis } : axis });
  const y = { field: 'ms', type: 'quantitative', title: 'time to synced (ms, log)', scale: ys.scale };
  const colour = serverColour(report, servers);
  const failing = r.failedPoints.length > 0;
  // Short lines: without a canvas Vega overestimates text widths, and a long subtitle widens the whole chart.
  const subtitle = [
    "point: a wallet's median time to synced, over its ok counted syncs",
    `bar: its fastest to slowest counted sync · ${r.run.workload} workload`,
    ...(values.some((v) => v.layer === 'wallet') ? [] : ['no ok counted sync in this run']),
  ];
  return walletSpec(title, subtitle, values, {
    vconcat: [
      {
        ...PLOT,
        layer: [
          { transform: only('wallet'), mark: { type: 'rule', strokeWidth: 2, opacity: 0.45 }, encoding: { x: x(), y: { field: 'lo', type: 'quantitative', scale: ys.scale, title: y.title }, y2: { field: 'hi' }, color: colour } },
          { transform: only('wallet'), mark: { type: 'line', strokeWidth: 1.8 }, encoding: { x: x(), y, order: { field: 'txs', type: 'quantitative' }, color: colour } },
          { transform: only('wallet'), mark: { type: 'circle', size: 45, opacity: 0.9 }, encoding: { x: x(), y, color: colour, description: { field: 'label' } } },
        ],
      },
      {
        width: PLOT.width,
        height: Math.max(LANE_ROW * servers.length, 22),
        title: { text: laneTitle(r), fontSize: 11, fontWeight: 'normal', anchor: 'start', color: failing ? ERROR_COLOUR : '#555' },
        transform: only('failed'),
        mark: { type: 'point', shape: 'cross', filled: true, size: 70, color: ERROR_COLOUR, opacity: 0.9 },
        encoding: {
          // The lane shares the plot's x (same explicit domain) but shows no labels of its own.
          x: x({ labels: false, ticks: false, domain: false, title: null }),
          y: { field: 'server', type: 'nominal', scale: { domain: servers }, title: null, axis: { ticks: false, domain: false } },
          description: { field: 'label' },
        },
      },
    ],
    spacing: 6,
  });
}
