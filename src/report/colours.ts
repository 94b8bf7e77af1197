/**
 * The report's one colour order: every server of every selected run (the address runs' series,
 * then the load runs', then the wallet runs'), first met first. Each chart takes a server's colour
 * from its place here, not from its place among the chart's own servers, so Fulcrum is the same
 * colour in the address charts, the load charts and the wallet charts of one report.
 */
import type { ReportModel } from './model';
import type { LoadRunReport } from './load-model';
import type { WalletReport } from './wallet-model';

export function colourOrder(bench: ReportModel | null, load: readonly LoadRunReport[], wallet: WalletReport | null): string[] {
  const names = [...(bench?.servers.map((s) => s.label) ?? []), ...load.flatMap((r) => r.servers.map((s) => s.label)), ...(wallet?.servers ?? [])];
  return [...new Set(names)];
}

/** Gives every model of the report the one order (models read on their own keep their own). */
export function assignColours(bench: ReportModel | null, load: readonly LoadRunReport[], wallet: WalletReport | null): void {
  const order = colourOrder(bench, load, wallet);
  if (bench) bench.colourOrder = order;
  for (const r of load) r.colourOrder = order;
  if (wallet) wallet.colourOrder = order;
}
