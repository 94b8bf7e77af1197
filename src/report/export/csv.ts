import { Exporter, writeOutput } from './exporter';

const quote = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Every per-address median, one row each: the raw material behind the charts. */
export const csvExporter: Exporter = {
  name: 'csv',
  write: ({ model, outDir }) => {
    const header = ['server', 'method', 'address', 'scripthash', 'type', 'tx_count', 'utxo_count', 'median_ms', 'n_ok', 'n_error'];
    const lines = model.points.map((p) =>
      [p.server, p.method, p.address, p.scripthash, p.type, p.txCount, p.utxoCount, p.medianMs === null ? '' : p.medianMs.toFixed(6), p.nOk, p.nError]
        .map(quote)
        .join(','),
    );
    return [writeOutput(outDir, 'medians.csv', [header.join(','), ...lines].join('\n') + '\n')];
  },
};
