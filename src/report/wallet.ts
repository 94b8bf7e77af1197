/**
 * The wallet part of the report, laid out once from the model: which tables and charts, in which
 * order. The same plan names the chart files before rendering (their paths are claimed first) and
 * orders the rendered part, so the two cannot disagree.
 */
import type { Table } from './table';
import type { WalletReport } from './wallet-model';
import { requestMixChartFile, walletRunChartFiles } from './charts/wallet-definitions';
import type { WalletChartFile } from './charts/wallet-chart';
import { abuseTable } from './abuse-tables';
import { failedSyncsTable, findMaxTable, heldSearchTable, notificationsTable, requestMixTable, syncTimeTable, walletLoadTable, walletRunsTable } from './wallet-tables';

export interface WalletSectionPlan {
  tables: Table[];
  charts: WalletChartFile[];
}

/**
 * The runs, then each bench run's time to synced, every failed sync, each load run's held wallets,
 * arrivals, notifications and abuse, and last the request mix that sets the workloads side by side.
 */
export function walletSections(report: WalletReport): WalletSectionPlan[] {
  const bench = report.runs.filter((r) => r.run.kind === 'bench');
  const load = report.runs.filter((r) => r.run.kind === 'load');
  const failed = failedSyncsTable(report);
  const mixChart = requestMixChartFile(report);
  return [
    { tables: [walletRunsTable(report)], charts: [] },
    ...bench.map((r) => ({ tables: [syncTimeTable(r)], charts: walletRunChartFiles(report, r.run.id) })),
    ...(failed ? [{ tables: [failed], charts: [] }] : []),
    ...load.map((r) => {
      const tables = [findMaxTable(r), heldSearchTable(r), walletLoadTable(r), notificationsTable(r), abuseTable(r)].filter((t): t is NonNullable<typeof t> => t !== null);
      return { tables, charts: walletRunChartFiles(report, r.run.id) };
    }),
    { tables: [requestMixTable(report)], charts: mixChart ? [mixChart] : [] },
  ];
}

export function walletChartIds(report: WalletReport): Array<{ id: string; title: string }> {
  return walletSections(report).flatMap((s) => s.charts.map(({ id, title }) => ({ id, title })));
}
