/**
 * The collateral of an abuse on one server, phases on x (before, during, after): the arriving
 * wallets' time to synced at p50 (solid) and p99 (dashed), and the server's process as sampled in
 * each phase, its largest RSS and its CPU as a share of one core. A server not sampled says so in
 * the subtitle, its two panels empty rather than at zero.
 */
import type { AbuseRecord } from '../../store/abuse';
import type { WalletReport } from '../wallet-model';
import { fateText } from '../abuse-tables';
import { only, serverColour, Spec, walletSpec } from './wallet-chart';

const PANEL = { width: 220, height: 220 };
const MiB = 1024 * 1024;
const PHASE_ORDER = ['before', 'during', 'after'];

export function abuseSpec(report: WalletReport, a: AbuseRecord, title: string): Spec {
  const values: Spec[] = [];
  for (const p of a.phases) {
    for (const [measure, ms] of [['p50', p.p50Ms], ['p99', p.p99Ms]] as const) {
      if (ms !== null) values.push({ layer: 'sync', server: a.server, phase: p.phase, measure, ms, label: `${a.server}, ${p.phase}: ${measure} ${ms.toFixed(0)} ms over ${p.ok} ok of ${p.units} syncs` });
    }
    const res = p.resources;
    if (res?.rssMaxBytes != null) values.push({ layer: 'rss', server: a.server, phase: p.phase, mib: res.rssMaxBytes / MiB, label: `${a.server}, ${p.phase}: RSS up to ${(res.rssMaxBytes / MiB).toFixed(1)} MiB, ${res.threadsMax} threads, ${res.fdsMax} open files` });
    if (res?.cpuShare != null) values.push({ layer: 'cpu', server: a.server, phase: p.phase, pct: res.cpuShare * 100, label: `${a.server}, ${p.phase}: ${(res.cpuShare * 100).toFixed(0)} % of a core over ${res.readings} readings` });
  }
  const x = { field: 'phase', type: 'ordinal', sort: PHASE_ORDER, title: 'phase', scale: { domain: PHASE_ORDER } };
  const colour = serverColour(report, [a.server]);
  const panel = (text: string, layer: Spec[]): Spec => ({ ...PANEL, title: { text, fontSize: 12, anchor: 'start' }, layer });
  const bars = (name: string, field: string, yTitle: string): Spec[] => [
    { transform: only(name), mark: { type: 'bar', opacity: 0.8 }, encoding: { x, y: { field, type: 'quantitative', title: yTitle }, color: colour, description: { field: 'label' } } },
  ];
  const sync = panel("arriving wallets' time to synced", [
    {
      transform: only('sync'),
      mark: { type: 'line', point: true, strokeWidth: 1.8 },
      encoding: {
        x,
        y: { field: 'ms', type: 'quantitative', title: 'time to synced (ms)', scale: { zero: true } },
        color: colour,
        strokeDash: { field: 'measure', type: 'nominal', scale: { domain: ['p50', 'p99'], range: [[1, 0], [5, 4]] }, legend: { title: 'percentile', symbolType: 'stroke' } },
        detail: { field: 'measure' },
        description: { field: 'label' },
      },
    },
  ]);
  const n = a.phases.map((p) => (p.notifications ? `${p.phase} ${p.notifications.ok}/${p.notifications.expected}` : null)).filter(Boolean);
  const subtitle = [
    `${a.spec}: from ${((a.window.startMs - a.window.fromMs) / 1000).toFixed(1)} s to ${((a.window.endMs - a.window.fromMs) / 1000).toFixed(1)} s of the arrivals`,
    fateText(a),
    a.notSampledWhy ? `server process not sampled: ${a.notSampledWhy}` : `server process: ${a.sampledTarget}, as sampled in each phase`,
    n.length ? `held wallets notified of each phase's block: ${n.join(', ')}` : `notifications per phase: ${a.notificationsWhy ?? 'not measured'}`,
  ];
  return walletSpec(title, subtitle, values, {
    hconcat: [sync, panel('server RSS, largest in the phase', bars('rss', 'mib', 'RSS (MiB)')), panel('server CPU', bars('cpu', 'pct', '% of one core'))],
    spacing: 24,
  });
}
