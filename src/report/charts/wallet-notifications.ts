/**
 * Block notification latency of a wallet load run, per server: the cumulative share of the expected
 * notifications heard by each latency, from the moment the block was asked of the node, one panel for
 * headers and one for script status notifications. A curve that ends below 100 % is notifications
 * that never came. Each server's block polling interval is a dashed rule: a server hears of a block
 * only when it next polls its node, which is most of the latency.
 */
import type { NotificationKind, NotificationSeries, WalletReport, WalletRunReport } from '../wallet-model';
import { fmtMs } from '../table';
import { latencyScale } from './scales';
import { only, serverColour, Spec, walletSpec } from './wallet-chart';

const PANEL = { width: 300, height: 260 };
/** More points than this per curve add nothing visible; the curve is then sampled at evenly spaced ranks (ends kept). */
const MAX_POINTS = 1000;

const KIND_TITLE: Record<NotificationKind, string> = {
  headers: 'headers notifications (every held connection)',
  scripthash: 'script status notifications (paid scripts)',
};

/** The empirical CDF as step points: (latency of the i-th notification, share of the expected heard by then). */
function cdfPoints(n: NotificationSeries): Spec[] {
  const xs = n.latenciesMs;
  if (xs.length === 0 || n.expected === 0) return [];
  const ranks = xs.length <= MAX_POINTS ? xs.map((_, i) => i) : Array.from({ length: MAX_POINTS }, (_, k) => Math.round((k * (xs.length - 1)) / (MAX_POINTS - 1)));
  const pct = (heard: number) => (100 * heard) / n.expected;
  return [
    { layer: 'cdf', server: n.server, kind: n.kind, ms: xs[0], pct: 0 },
    ...ranks.map((i) => ({
      layer: 'cdf',
      server: n.server,
      kind: n.kind,
      ms: xs[i],
      pct: pct(i + 1),
      label: `${n.server}, ${n.kind}: ${i + 1} of ${n.expected} expected (${pct(i + 1).toFixed(1)} %) heard within ${fmtMs(xs[i])} ms`,
    })),
  ];
}

function serverLine(r: WalletRunReport, server: string): string {
  const counts = (['headers', 'scripthash'] as const)
    .map((kind) => r.notifications.find((n) => n.server === server && n.kind === kind))
    .filter((n): n is NotificationSeries => n !== undefined)
    .map((n) => `${n.kind} ${n.heard}/${n.expected}${n.duplicate ? ` (+${n.duplicate} duplicate)` : ''}`);
  const poll = r.servers.find((s) => s.name === server)?.polling?.pollMs;
  const polls = poll != null ? `; polls its node every ${poll} ms` : '';
  return `${server}: ${counts.length ? `${counts.join(', ')} heard` : 'no notification expected'}${polls}`;
}

export function notificationsSpec(report: WalletReport, r: WalletRunReport, title: string): Spec {
  const servers = r.servers.map((s) => s.name);
  const values: Spec[] = r.notifications.flatMap(cdfPoints);
  for (const s of r.servers) {
    if (s.polling?.pollMs == null) continue;
    values.push({ layer: 'poll', server: s.name, ms: s.polling.pollMs, label: `${s.name} polls its node every ${s.polling.pollMs} ms${s.polling.text ? ` (${s.polling.text})` : ''}` });
  }
  const xs = latencyScale(values.map((v) => v.ms as number), true);
  const x = { field: 'ms', type: 'quantitative', title: 'latency from the mining call (ms, log)', scale: xs.scale };
  const y = { field: 'pct', type: 'quantitative', title: '% of expected notifications heard', scale: { domain: [0, 100] } };
  const colour = serverColour(report, servers);
  const panel = (kind: NotificationKind): Spec => ({
    ...PANEL,
    title: { text: KIND_TITLE[kind], fontSize: 12, anchor: 'start' },
    layer: [
      { transform: only('cdf', `datum.kind === ${JSON.stringify(kind)}`), mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.8 }, encoding: { x, y, color: colour, order: { field: 'pct', type: 'quantitative' } } },
      { transform: only('cdf', `datum.kind === ${JSON.stringify(kind)} && datum.pct > 0`), mark: { type: 'point', size: 14, filled: true, opacity: 0 }, encoding: { x, y, description: { field: 'label' } } },
      { transform: only('poll'), mark: { type: 'rule', strokeDash: [5, 4], strokeWidth: 1.3 }, encoding: { x, color: colour, description: { field: 'label' } } },
    ],
  });
  // Short lines: without a canvas Vega overestimates text widths, and a long subtitle widens the whole chart.
  const subtitle = [
    'share of the expected notifications heard by each latency from the mining call',
    'a curve that ends below 100 % did not hear them all',
    "dashed rule: the server's block polling interval",
    ...servers.map((s) => serverLine(r, s)),
  ];
  return walletSpec(title, subtitle, values, { hconcat: [panel('headers'), panel('scripthash')], spacing: 24 });
}
