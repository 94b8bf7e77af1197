/**
 * The lab's figures in the shapes the published comparisons drew (issue #40): Casa's 2020 report
 * (latency against history size and UTXO count per server and method; Esplora's electrs flat above
 * the 100 history items where it starts caching an address's stats; romanz's electrs far slower
 * than ElectrumX) and Sparrow's (wallets loaded, Fulcrum against ElectrumX against electrs).
 *
 * From one or more results databases, one round each (the latest bench run and the latest
 * `--workload` run of each): per server and method the median of the per-address medians by
 * history bucket, least-squares slopes (ms per 100 transactions, below 100 items and from 100 on;
 * per 100 UTXOs against the UTXO count), and per address the ratio of each server's median to
 * ElectrumX's; per server the wallet syncs of the warm-up pass (the server's first sight of each
 * wallet) beside the counted passes'. Over several databases each figure is the median [min–max]
 * of the rounds' (with two, both, in order).
 *
 *   npx tsx bench/published-shapes.ts --db r1.sqlite,r2.sqlite,r3.sqlite [--reference electrumx]
 */
import Database from 'better-sqlite3';
import { flag } from './args';
import { leastSquares } from '../src/report/fit';
import { medianOfUnsorted } from '../src/core/quantiles';
import { readModels } from '../src/report/report';
import { reportOptions } from '../src/report/options';
import type { MedianPoint } from '../src/report/model';

/** Esplora's electrs keeps an address's stats and UTXO set cached from this many history items on. */
const CACHE_THRESHOLD = 100;
const BUCKETS: Array<[number, number]> = [
  [1, 1],
  [2, 9],
  [10, 99],
  [100, 999],
  [1000, Infinity],
];
const bucketName = ([lo, hi]: [number, number]) => (lo === hi ? `${lo}` : hi === Infinity ? `≥${lo}` : `${lo}–${hi}`);

interface Shape {
  server: string;
  method: string;
  addresses: number;
  buckets: Array<number | null>;
  /** ms per 100 transactions, or per 100 UTXOs for `utxoSlope`. */
  slopeAll: number | null;
  r2All: number | null;
  slopeBelow: number | null;
  slopeFrom: number | null;
  utxoSlope: number | null;
  utxoR2: number | null;
  /** Median over addresses of this server's median ÷ the reference's, below 100 items and from 100 on. */
  ratioBelow: number | null;
  ratioFrom: number | null;
}

interface WalletShape {
  server: string;
  firstPassMs: number | null;
  countedMs: number | null;
  largestFirstMs: number | null;
  largestCountedMs: number | null;
  failed: number;
  syncs: number;
}

const per100 = (pts: MedianPoint[], axis: 'txCount' | 'utxoCount') => {
  const fit = leastSquares(pts.map((p) => p[axis]), pts.map((p) => p.medianMs as number));
  return fit === null ? { slope: null, r2: null } : { slope: fit.slope * 100, r2: fit.r2 };
};
const medianOrNull = (xs: number[]): number | null => (xs.length === 0 ? null : medianOfUnsorted(xs));

function addressShapes(db: string, reference: string): Shape[] {
  const model = readModels(reportOptions({ db, out: '/nonexistent-report-not-written' })).bench;
  if (!model) return [];
  const ok = model.points.filter((p) => p.medianMs !== null);
  const refMs = new Map(ok.filter((p) => p.server === reference).map((p) => [`${p.method}/${p.addressIdx}`, p.medianMs as number]));
  const keys = [...new Set(ok.map((p) => `${p.server}\t${p.method}`))].sort();
  return keys.map((key) => {
    const [server, method] = key.split('\t');
    const pts = ok.filter((p) => p.server === server && p.method === method);
    const below = pts.filter((p) => p.txCount < CACHE_THRESHOLD);
    const from = pts.filter((p) => p.txCount >= CACHE_THRESHOLD);
    const ratio = (sel: MedianPoint[]) =>
      medianOrNull(sel.flatMap((p) => {
        const r = refMs.get(`${method}/${p.addressIdx}`);
        return r ? [(p.medianMs as number) / r] : [];
      }));
    const all = per100(pts, 'txCount');
    const byUtxos = per100(pts, 'utxoCount');
    return {
      server,
      method,
      addresses: pts.length,
      buckets: BUCKETS.map(([lo, hi]) => medianOrNull(pts.filter((p) => p.txCount >= lo && p.txCount <= hi).map((p) => p.medianMs as number))),
      slopeAll: all.slope,
      r2All: all.r2,
      slopeBelow: per100(below, 'txCount').slope,
      slopeFrom: per100(from, 'txCount').slope,
      utxoSlope: byUtxos.slope,
      utxoR2: byUtxos.r2,
      ratioBelow: ratio(below),
      ratioFrom: ratio(from),
    };
  });
}

function walletShapes(db: string): WalletShape[] {
  const d = new Database(db, { readonly: true });
  try {
    const run = d.prepare(`SELECT max(run_id) AS id FROM wallet_syncs`).get() as { id: number | null };
    if (run.id === null) return [];
    const rows = d
      .prepare(`SELECT rs.name AS server, w.wallet, w.warmup, w.status, w.expected_txs AS txs, w.duration_ns AS ns FROM wallet_syncs w JOIN run_servers rs ON rs.id = w.server_id WHERE w.run_id = ?`)
      .all(run.id) as Array<{ server: string; wallet: string; warmup: number; status: string; txs: number; ns: number }>;
    const largest = Math.max(...rows.map((r) => r.txs));
    return [...new Set(rows.map((r) => r.server))].sort().map((server) => {
      const mine = rows.filter((r) => r.server === server);
      const okMs = (warmup: number, onlyLargest: boolean) => {
        const sel = mine.filter((r) => r.warmup === warmup && r.status === 'ok' && (!onlyLargest || r.txs === largest));
        const wallets = [...new Set(sel.map((r) => r.wallet))];
        return medianOrNull(wallets.map((w) => medianOfUnsorted(sel.filter((r) => r.wallet === w).map((r) => r.ns / 1e6)) as number));
      };
      return {
        server,
        firstPassMs: okMs(1, false),
        countedMs: okMs(0, false),
        largestFirstMs: okMs(1, true),
        largestCountedMs: okMs(0, true),
        failed: mine.filter((r) => r.status !== 'ok').length,
        syncs: mine.length,
      };
    });
  } finally {
    d.close();
  }
}

const fmt = (x: number | null, digits = 2) => (x === null ? '–' : x.toFixed(digits));
/** One figure over rounds: each round's with one or two rounds, else median [min–max]. */
function overRounds(xs: Array<number | null>, digits = 2): string {
  const v = xs.filter((x): x is number => x !== null);
  if (v.length === 0) return '–';
  if (v.length <= 2) return v.map((x) => fmt(x, digits)).join(', ');
  return `${fmt(medianOfUnsorted(v), digits)} [${fmt(Math.min(...v), digits)}–${fmt(Math.max(...v), digits)}]`;
}
const row = (cells: string[]) => console.log(`| ${cells.join(' | ')} |`);

function printAddresses(rounds: Shape[][], reference: string) {
  const keys = [...new Set(rounds.flat().map((s) => `${s.server}\t${s.method}`))];
  const pick = (key: string) => rounds.map((r) => r.find((s) => `${s.server}\t${s.method}` === key)).filter((s): s is Shape => s !== undefined);
  console.log(`\n### Median of per-address medians (ms) by confirmed history size\n`);
  row(['server', 'method', 'n', ...BUCKETS.map(bucketName)]);
  row(['---', '---', '---:', ...BUCKETS.map(() => '---:')]);
  for (const key of keys) {
    const s = pick(key);
    row([...key.split('\t'), String(s[0].addresses), ...BUCKETS.map((_, i) => overRounds(s.map((x) => x.buckets[i]), 3))]);
  }
  console.log(`\n### Slopes (ms per 100) and the ratio to ${reference} (median over addresses of the per-address ratio)\n`);
  row(['server', 'method', 'vs history, all', 'r²', `< ${CACHE_THRESHOLD} items`, `≥ ${CACHE_THRESHOLD} items`, 'vs UTXOs', 'r²', `÷ ${reference}, < ${CACHE_THRESHOLD}`, `÷ ${reference}, ≥ ${CACHE_THRESHOLD}`]);
  row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
  for (const key of keys) {
    const s = pick(key);
    row([
      ...key.split('\t'),
      overRounds(s.map((x) => x.slopeAll), 3),
      overRounds(s.map((x) => x.r2All)),
      overRounds(s.map((x) => x.slopeBelow), 3),
      overRounds(s.map((x) => x.slopeFrom), 3),
      overRounds(s.map((x) => x.utxoSlope), 3),
      overRounds(s.map((x) => x.utxoR2)),
      overRounds(s.map((x) => x.ratioBelow)),
      overRounds(s.map((x) => x.ratioFrom)),
    ]);
  }
}

function printWallets(rounds: WalletShape[][]) {
  const servers = [...new Set(rounds.flat().map((w) => w.server))];
  console.log(`\n### Wallet syncs: the warm-up pass (first sight) and the counted passes, ms (median of wallet medians; the largest wallet's)\n`);
  row(['server', 'first pass', 'counted passes', 'largest, first pass', 'largest, counted', 'failed / syncs']);
  row(['---', '---:', '---:', '---:', '---:', '---']);
  for (const server of servers) {
    const w = rounds.map((r) => r.find((x) => x.server === server)).filter((x): x is WalletShape => x !== undefined);
    row([
      server,
      overRounds(w.map((x) => x.firstPassMs), 1),
      overRounds(w.map((x) => x.countedMs), 1),
      overRounds(w.map((x) => x.largestFirstMs), 1),
      overRounds(w.map((x) => x.largestCountedMs), 1),
      w.map((x) => `${x.failed}/${x.syncs}`).join(', '),
    ]);
  }
}

const dbs = (flag('db') ?? '').split(',').filter(Boolean);
if (dbs.length === 0) {
  console.error('usage: npx tsx bench/published-shapes.ts --db A.sqlite[,B.sqlite…] [--reference electrumx]');
  process.exit(2);
}
const reference = flag('reference', 'electrumx');
const address = dbs.map((db) => addressShapes(db, reference)).filter((r) => r.length > 0);
const wallets = dbs.map(walletShapes).filter((r) => r.length > 0);
console.log(`rounds: ${dbs.length} (${address.length} with a bench run, ${wallets.length} with a wallet run)`);
if (address.length > 0) printAddresses(address, reference);
if (wallets.length > 0) printWallets(wallets);
