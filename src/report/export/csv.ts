import type { Exporter, RenderedReport } from './exporter';

const quote = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

const csv = (header: string[], rows: unknown[][]) => [header.join(','), ...rows.map((r) => r.map(quote).join(','))].join('\n') + '\n';

const ms = (v: number | null) => (v === null ? '' : v.toFixed(6));

/** Every per-address median, one row each: the raw material behind the charts, for a spreadsheet. */
function medians({ bench }: RenderedReport) {
  if (!bench) return [];
  const { model } = bench;
  const runOf = new Map(model.servers.map((s) => [s.label, s.run.id]));
  const header = ['run', 'server', 'method', 'address_idx', 'address', 'scripthash', 'type', 'tx_count', 'utxo_count', 'median_ms', 'n_ok', 'n_error'];
  const rows = model.points.map((p) => [runOf.get(p.server), p.server, p.method, p.addressIdx, p.address, p.scripthash, p.type, p.txCount, p.utxoCount, ms(p.medianMs), p.nOk, p.nError]);
  return [{ name: 'medians.csv', data: csv(header, rows) }];
}

/** Every wallet of every wallet bench run per server, over its counted syncs: the time-to-synced chart's points. */
function walletMedians({ wallet }: RenderedReport) {
  const runs = wallet?.model.runs.filter((r) => r.run.kind === 'bench') ?? [];
  if (runs.length === 0) return [];
  const header = ['run', 'workload', 'server', 'wallet', 'scripts', 'expected_txs', 'median_ms', 'min_ms', 'max_ms', 'n_ok', 'n_failed'];
  const rows = runs.flatMap((r) => r.points.map((p) => [r.run.number, r.run.workload, p.server, p.wallet, p.scripts, p.txs, ms(p.medianMs), ms(p.minMs), ms(p.maxMs), p.nOk, p.nFailed]));
  return [{ name: 'wallet-medians.csv', data: csv(header, rows) }];
}

export const csvExporter: Exporter = {
  name: 'csv',
  fileNames: ({ bench, walletBench }) => [...(bench ? ['medians.csv'] : []), ...(walletBench ? ['wallet-medians.csv'] : [])],
  serialize: (r) => [...medians(r), ...walletMedians(r)],
};
