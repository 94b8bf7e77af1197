import type { Exporter } from './exporter';

const quote = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Every per-address median, one row each: the raw material behind the charts, for a spreadsheet. */
export const csvExporter: Exporter = {
  name: 'csv',
  fileNames: ({ bench }) => (bench ? ['medians.csv'] : []),
  serialize: ({ bench }) => {
    if (!bench) return [];
    const { model } = bench;
    const runOf = new Map(model.servers.map((s) => [s.label, s.run.id]));
    const header = ['run', 'server', 'method', 'address_idx', 'address', 'scripthash', 'type', 'tx_count', 'utxo_count', 'median_ms', 'n_ok', 'n_error'];
    const lines = model.points.map((p) =>
      [runOf.get(p.server), p.server, p.method, p.addressIdx, p.address, p.scripthash, p.type, p.txCount, p.utxoCount, p.medianMs === null ? '' : p.medianMs.toFixed(6), p.nOk, p.nError]
        .map(quote)
        .join(','),
    );
    return [{ name: 'medians.csv', data: [header.join(','), ...lines].join('\n') + '\n' }];
  },
};
