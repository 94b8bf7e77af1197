/**
 * "Did it regress?" for wallet bench runs: per server, B's syncs against A's over every wallet both
 * synced, paired by wallet with each run's passes resampled, and per wallet, unpaired.
 */
import { medianOfUnsorted } from '../core/quantiles';
import type { ResultsReader } from '../store/read';
import type { WalletRunRow } from '../store/wallets';
import { pairedVerdict, unpairedVerdict, type VerdictOptions } from './verdict';
import type { WalletCompareRow } from './comparison';

/** One wallet on one server of a wallet bench run: its counted ok syncs, in pass order, and their median (ms). */
export interface WalletSyncs {
  server: string;
  wallet: string;
  /** The wallet's size: transactions it is known to have. */
  txs: number;
  medianMs: number | null;
  okSyncs: Array<{ pass: number; ms: number }>;
}

/** What one wallet run stored that its verdicts stand on: every wallet that had a counted sync on a server, with its ok ones. */
export function readWalletSyncs(reader: ResultsReader, run: WalletRunRow): WalletSyncs[] {
  const nameOf = new Map(reader.walletServers(run.id).map((s) => [s.id, s.name]));
  const wallets = new Map<string, WalletSyncs>();
  for (const r of reader.countedSyncs(run.id)) {
    const server = nameOf.get(r.server_id);
    if (server === undefined) continue;
    const key = `${r.server_id}\u0000${r.wallet}`;
    const w = wallets.get(key) ?? { server, wallet: r.wallet, txs: r.expected_txs, medianMs: null, okSyncs: [] };
    wallets.set(key, w);
    if (r.status === 'ok') w.okSyncs.push({ pass: r.pass, ms: r.duration_ns / 1e6 });
  }
  return [...wallets.values()].map((w) => ({ ...w, okSyncs: w.okSyncs.sort((x, y) => x.pass - y.pass), medianMs: medianOfUnsorted(w.okSyncs.map((s) => s.ms)) }));
}

/** Fewest wallets a server's verdict over all its wallets stands on (the lab has 9). */
export const MIN_WALLETS = 5;

/**
 * Per server in both runs: first its verdict over every wallet both synced (the same wallet, the
 * same size), paired by wallet with each run's passes resampled, as addresses are in the bench (a
 * pass's drift hits every wallet alike, so this one carries the machine's drift); then per wallet,
 * B's counted syncs against A's, unpaired (one wallet's syncs in two runs are not the same moments).
 */
export function compareWalletRuns(a: readonly WalletSyncs[], b: readonly WalletSyncs[], options: VerdictOptions = {}): WalletCompareRow[] {
  const rows: WalletCompareRow[] = [];
  const servers = [...new Set(a.map((p) => p.server))].filter((s) => b.some((p) => p.server === s)).sort();
  for (const server of servers) {
    const both = a
      .filter((pa) => pa.server === server)
      .flatMap((pa) => {
        const pb = b.find((p) => p.server === server && p.wallet === pa.wallet && p.txs === pa.txs);
        return pb ? [[pa, pb] as const] : [];
      })
      .sort(([x], [y]) => x.txs - y.txs || (x.wallet < y.wallet ? -1 : 1));
    if (both.length === 0) continue;
    const msOf = (p: WalletSyncs) => p.okSyncs.map((s) => s.ms);
    rows.push({
      server,
      wallet: null,
      txs: null,
      syncs: [both.reduce((n, [pa]) => n + pa.okSyncs.length, 0), both.reduce((n, [, pb]) => n + pb.okSyncs.length, 0)],
      a: medianOfUnsorted(both.map(([pa]) => pa.medianMs).filter((m): m is number => m !== null)),
      b: medianOfUnsorted(both.map(([, pb]) => pb.medianMs).filter((m): m is number => m !== null)),
      verdict: pairedVerdict(
        passByWallet(both.map(([pa]) => pa)),
        passByWallet(both.map(([, pb]) => pb)),
        { minSamples: MIN_WALLETS, columns: 'wallets synced in both', ...options, seed: options.seed ?? `${server} wallets` },
      ),
    });
    for (const [pa, pb] of both) {
      rows.push({
        server,
        wallet: pa.wallet,
        txs: pa.txs,
        syncs: [pa.okSyncs.length, pb.okSyncs.length],
        a: pa.medianMs,
        b: pb.medianMs,
        verdict: unpairedVerdict(msOf(pa), msOf(pb), { ...options, seed: options.seed ?? `${server} ${pa.wallet}` }),
      });
    }
  }
  return rows;
}

/** Rows of passes, a column per wallet (in the order given), NaN where a pass has no ok sync of it. */
function passByWallet(wallets: WalletSyncs[]): number[][] {
  const passes = [...new Set(wallets.flatMap((p) => p.okSyncs.map((s) => s.pass)))].sort((x, y) => x - y);
  return passes.map((pass) => wallets.map((p) => p.okSyncs.find((s) => s.pass === pass)?.ms ?? NaN));
}
