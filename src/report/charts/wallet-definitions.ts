/**
 * The wallet charts a report gets, named by run so several runs share an output directory: per
 * bench run its time to synced vs wallet size, per load run that measured notifications their
 * latency and per server abused beside it the collateral, and one request-mix chart over every selected run.
 */
import type { WalletReport } from '../wallet-model';
import { runName } from '../wallet-tables';
import type { WalletChartFile } from './wallet-chart';
import { notificationsSpec } from './wallet-notifications';
import { abuseSpec } from './wallet-abuse';
import { requestMixSpec } from './wallet-request-mix';
import { syncTimeSpec } from './wallet-sync-time';

/** The charts that go with one run's tables. */
export function walletRunChartFiles(report: WalletReport, runId: number): WalletChartFile[] {
  const r = report.runs.find((x) => x.run.id === runId)!;
  if (r.run.kind === 'bench') {
    const title = `Time to synced wallet vs wallet size — ${runName(r.run)}`;
    return [{ id: `wallet-${r.run.number}-sync-time`, title, spec: () => syncTimeSpec(report, r, title) }];
  }
  const charts: WalletChartFile[] = [];
  if (r.notifications.length > 0) {
    const title = `Block notification latency — ${runName(r.run)}`;
    charts.push({ id: `wallet-${r.run.number}-notifications`, title, spec: () => notificationsSpec(report, r, title) });
  }
  // One collateral chart per abused server, named by its place in the run (a server's name may not suit a file name).
  (r.abuse ?? []).forEach((a, i) => {
    const title = `Collateral of ${a.profile} on ${a.server} — ${runName(r.run)}`;
    charts.push({ id: `wallet-${r.run.number}-abuse-${i + 1}`, title, spec: () => abuseSpec(report, a, title) });
  });
  return charts;
}

/** Null when no selected run has a single ok counted sync: there is no mix to draw. */
export function requestMixChartFile(report: WalletReport): WalletChartFile | null {
  if (report.runs.every((r) => r.mix.length === 0)) return null;
  const title = `Request mix per sync step — wallet run${report.runs.length > 1 ? 's' : ''} ${report.runs.map((r) => r.run.number).join(', ')}`;
  return { id: 'wallet-request-mix', title, spec: () => requestMixSpec(report, title) };
}
