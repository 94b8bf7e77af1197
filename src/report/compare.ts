/**
 * "Did it regress?": two databases (e.g. two versions of one server), the latest completed run of
 * each, per-address medians matched by (server name, method, scripthash), and per server and method
 * a verdict (src/verdicts/verdict.ts): the change of B against A, paired by address, with its 95 %
 * interval and `faster`, `slower` or `no change`. Only addresses measured in both count, so a
 * dataset that grew between rounds does not show up as a speed change.
 */
import { medianOfUnsorted } from '../core/quantiles';
import { loadModel } from './load';
import type { ReportModel } from './model';
import { fmtMs, markdownTable, Table } from './table';
import { DEFAULT_NOISE_FLOOR_PCT, pairedVerdict, pairsVerdict, unpairedVerdict, verdictText, type Verdict, type VerdictOptions } from '../verdicts/verdict';
import { formatDuration } from '../core/duration';
import { UserError } from '../core/user-error';
import { ResultsStore } from '../store/results';
import { ResultsReader } from '../store/read';
import { readLoadRun } from './load-read';
import { FINISHED_LOAD_STATUSES } from '../core/run-status';
import type { LoadRunReport, LoadServerReport } from './load-model';
import { readWalletRun } from './wallet-read';
import type { WalletRunReport, WalletSyncPoint } from './wallet-model';

export interface CompareRow {
  server: string;
  method: string;
  matched: number;
  a: number | null;
  b: number | null;
  /** The change of the median of medians (the figure before verdicts; the verdict's is paired). */
  changePct: number | null;
  verdict: Verdict;
  /** Measured in both, but no address answered on this side (every call failed): no pairs at all. */
  unanswered?: 'a' | 'b' | 'both';
}

/** One server's latency percentile across two load runs: each run's per-second values, bootstrapped. */
export interface LoadCompareRow {
  server: string;
  percentile: 'p50' | 'p99';
  /** Seconds with an answer, A and B. */
  intervals: [number, number];
  /** The whole run's percentile, ms. */
  a: number | null;
  b: number | null;
  verdict: Verdict;
}

/**
 * One server against the baseline in one interleaved load run (`load --interleave`), per latency
 * percentile: each round's turn of B against A's, paired (a sign test over the rounds).
 */
export interface LoadPairedRow {
  /** "B vs A". */
  server: string;
  /** B, the server judged. */
  judged: string;
  percentile: 'p50' | 'p99';
  /** Rounds in which both had an answered turn. */
  pairs: number;
  /** The whole run's percentile, ms (each server's turns added up). */
  a: number | null;
  b: number | null;
  verdict: Verdict;
}

/** One wallet on one server across two wallet bench runs: each run's counted syncs, bootstrapped. */
export interface WalletCompareRow {
  server: string;
  /** Null: the server's row over all its wallets. */
  wallet: string | null;
  txs: number | null;
  /** Counted ok syncs, A and B. */
  syncs: [number, number];
  /** Median time to synced, ms. */
  a: number | null;
  b: number | null;
  verdict: Verdict;
}

export interface Comparison {
  rows: CompareRow[];
  /** Load runs' rows, when both databases hold a finished load run. */
  load?: LoadCompareRow[];
  /** Servers of one interleaved load run against one, turn by turn, and how long a turn was. */
  loadPaired?: { turnMs: number; rows: LoadPairedRow[] };
  /** Wallet syncs' rows, when both databases hold a completed wallet bench run of one workload. */
  wallet?: { workload: string; rows: WalletCompareRow[] };
  /** Why wallet runs both databases hold were not compared (their workloads differ). */
  walletNote?: string;
  noiseFloorPct: number;
  onlyA: string[]; // "server method" pairs measured in A only
  onlyB: string[];
}

const SEP = '\u0000';

function mediansByKey(model: ReportModel): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of model.points) if (p.medianMs !== null) m.set([p.server, p.method, p.scripthash].join(SEP), p.medianMs);
  return m;
}

function pairs(model: ReportModel): Set<string> {
  return new Set(model.points.map((p) => `${p.server} ${p.method}`));
}

export function compareModels(modelA: ReportModel, modelB: ReportModel, options: VerdictOptions = {}): Comparison {
  const a = mediansByKey(modelA);
  const b = mediansByKey(modelB);
  const groups = new Map<string, { a: number[]; b: number[]; scripthashes: string[] }>();
  for (const [key, va] of a) {
    const vb = b.get(key);
    if (vb === undefined) continue;
    const [server, method, scripthash] = key.split(SEP);
    const g = groups.get(server + SEP + method) ?? { a: [], b: [], scripthashes: [] };
    g.a.push(va);
    g.b.push(vb);
    g.scripthashes.push(scripthash);
    groups.set(server + SEP + method, g);
  }
  const passesA = passMatrices(modelA);
  const passesB = passMatrices(modelB);
  const rows: CompareRow[] = [...groups.entries()]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([key, g]) => {
      const [server, method] = key.split(SEP);
      const [ra, rb] = [passesA?.get(key), passesB?.get(key)];
      const verdict =
        ra && rb
          ? pairedVerdict(matrixOf(ra, g.scripthashes), matrixOf(rb, g.scripthashes), { ...options, seed: options.seed ?? `${server} ${method}` })
          : noPasses();
      const ma = medianOfUnsorted(g.a);
      const mb = medianOfUnsorted(g.b);
      return { server, method, matched: g.a.length, a: ma, b: mb, changePct: ma && mb !== null ? ((mb - ma) / ma) * 100 : null, verdict };
    });
  const pa = pairs(modelA);
  const pb = pairs(modelB);
  // A method measured on both sides whose calls all failed on one of them has no pair to judge:
  // it gets a row saying so (and fails --fail-on-regression when it is B's), never silence.
  const answered = (m: ReportModel, key: string) => m.points.some((p) => `${p.server} ${p.method}` === key && p.medianMs !== null);
  for (const key of [...pa].filter((k) => pb.has(k)).sort()) {
    const [server, method] = [key.slice(0, key.lastIndexOf(' ')), key.slice(key.lastIndexOf(' ') + 1)];
    if (groups.has(server + SEP + method)) continue;
    const [inA, inB] = [answered(modelA, key), answered(modelB, key)];
    const unanswered = !inA && !inB ? 'both' : !inB ? 'b' : !inA ? 'a' : undefined;
    if (!unanswered) continue;
    const why = unanswered === 'both' ? 'no address was answered in A or B' : `no address was answered in ${unanswered.toUpperCase()} (every call failed)`;
    rows.push({ server, method, matched: 0, a: null, b: null, changePct: null, verdict: { ...noPasses(), why }, unanswered });
  }
  return { rows, noiseFloorPct: options.noiseFloorPct ?? DEFAULT_NOISE_FLOOR_PCT, onlyA: [...pa].filter((k) => !pb.has(k)).sort(), onlyB: [...pb].filter((k) => !pa.has(k)).sort() };
}

/**
 * Two databases: their latest completed bench runs compared by address, and their latest finished
 * load runs by each second's percentiles, whichever both hold.
 */
export function compareDatabases(dbA: string, dbB: string, options: VerdictOptions = {}): Comparison {
  const [a, b] = [contentsOf(dbA), contentsOf(dbB)];
  if (!(a.bench && b.bench) && !(a.load && b.load) && !(a.wallet && b.wallet)) {
    const has = (c: Contents) =>
      [c.bench && 'a completed bench run', c.load && 'a finished load run', c.wallet && 'a completed wallet bench run'].filter(Boolean).join(' and ') ||
      'no completed bench run, finished load run or completed wallet bench run';
    throw new UserError(`compare: nothing of one kind in both: ${dbA} has ${has(a)}; ${dbB} has ${has(b)}`);
  }
  const comparison = a.bench && b.bench ? compareModels(a.bench, b.bench, options) : emptyComparison(options);
  if (a.load && b.load) comparison.load = compareLoads(a.load, b.load, options);
  if (a.wallet && b.wallet) {
    const [wa, wb] = [a.wallet.run.workload, b.wallet.run.workload];
    if (wa === wb) comparison.wallet = { workload: wa, rows: compareWallets(a.wallet, b.wallet, options) };
    else comparison.walletNote = `The latest wallet bench runs sync different workloads (A: ${wa}, B: ${wb}): their times are not compared.`;
  }
  return comparison;
}

interface Contents {
  bench: ReportModel | null;
  load: LoadRunReport | null;
  wallet: WalletRunReport | null;
}

/** A database's latest completed bench run (with its passes), latest finished load run and latest completed wallet bench run, read in one open (`read` leaves some out). */
function contentsOf(db: string, read: { [K in keyof Contents]?: false } = {}): Contents {
  const store = ResultsStore.open(db, { readonly: true });
  try {
    const reader = new ResultsReader(store);
    const latestLoad = read.load === false ? undefined : reader.loadRuns().filter((r) => FINISHED_LOAD_STATUSES.includes(r.status)).at(-1);
    const latestWallet = read.wallet === false ? undefined : reader.walletRuns().filter((r) => r.kind === 'bench' && r.status === 'completed').at(-1);
    return {
      bench: read.bench !== false && reader.benchRuns().some((r) => r.status === 'completed') ? loadModel(db, { withPasses: true }, store) : null,
      load: latestLoad ? readLoadRun(reader, latestLoad, 'latest') : null,
      wallet: latestWallet ? readWalletRun(reader, latestWallet) : null,
    };
  } finally {
    store.close();
  }
}

function emptyComparison(options: VerdictOptions): Comparison {
  return { rows: [], noiseFloorPct: options.noiseFloorPct ?? DEFAULT_NOISE_FLOOR_PCT, onlyA: [], onlyB: [] };
}

/**
 * Per server in both runs and per percentile: B's per-second values against A's, unpaired (the
 * seconds of two runs are not the same moments), with the whole run's percentile beside them.
 */
export function compareLoads(a: LoadRunReport, b: LoadRunReport, options: VerdictOptions = {}): LoadCompareRow[] {
  const rows: LoadCompareRow[] = [];
  for (const sa of a.servers) {
    const sb = b.servers.find((s) => s.label === sa.label);
    if (!sb) continue;
    for (const percentile of ['p50', 'p99'] as const) {
      const key = `${percentile}Ms` as const;
      const values = (s: typeof sa) => s.intervals.flatMap((i) => (i[key] === null ? [] : [i[key]!]));
      const [va, vb] = [values(sa), values(sb)];
      rows.push({
        server: sa.label,
        percentile,
        intervals: [va.length, vb.length],
        a: sa.totals[key],
        b: sb.totals[key],
        verdict: unpairedVerdict(va, vb, { ...options, seed: options.seed ?? `${sa.label} ${percentile}` }),
      });
    }
  }
  return rows;
}

/** Fewest wallets a server's verdict over all its wallets stands on (the lab has 9). */
export const MIN_WALLETS = 5;

/**
 * Per server in both runs: first its verdict over every wallet both synced (the same wallet, the
 * same size), paired by wallet with each run's passes resampled, as addresses are in the bench (a
 * pass's drift hits every wallet alike, so this one carries the machine's drift); then per wallet,
 * B's counted syncs against A's, unpaired (one wallet's syncs in two runs are not the same moments).
 */
export function compareWallets(a: WalletRunReport, b: WalletRunReport, options: VerdictOptions = {}): WalletCompareRow[] {
  const rows: WalletCompareRow[] = [];
  const servers = [...new Set(a.points.map((p) => p.server))].filter((s) => b.points.some((p) => p.server === s)).sort();
  for (const server of servers) {
    const both = a.points
      .filter((pa) => pa.server === server)
      .flatMap((pa) => {
        const pb = b.points.find((p) => p.server === server && p.wallet === pa.wallet && p.txs === pa.txs);
        return pb ? [[pa, pb] as const] : [];
      })
      .sort(([x], [y]) => x.txs - y.txs || (x.wallet < y.wallet ? -1 : 1));
    if (both.length === 0) continue;
    const msOf = (p: WalletSyncPoint) => p.okSyncs.map((s) => s.ms);
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
function passByWallet(points: WalletSyncPoint[]): number[][] {
  const passes = [...new Set(points.flatMap((p) => p.okSyncs.map((s) => s.pass)))].sort((x, y) => x - y);
  return passes.map((pass) => points.map((p) => p.okSyncs.find((s) => s.pass === pass)?.ms ?? NaN));
}

/** Per (server, method): each pass's latency per address (scripthash); undefined when the model was read without passes. */
function passMatrices(model: ReportModel): Map<string, Map<number, Map<string, number>>> | undefined {
  if (!model.passes) return undefined;
  const out = new Map<string, Map<number, Map<string, number>>>();
  for (const p of model.passes) {
    const key = p.server + SEP + p.method;
    const byPass = out.get(key) ?? new Map<number, Map<string, number>>();
    const row = byPass.get(p.pass) ?? new Map<string, number>();
    row.set(p.scripthash, p.latencyMs);
    byPass.set(p.pass, row);
    out.set(key, byPass);
  }
  return out;
}

/** Rows of passes, columns in `scripthashes`' order, NaN where a pass has no answer for an address. */
function matrixOf(byPass: Map<number, Map<string, number>>, scripthashes: string[]): number[][] {
  return [...byPass.keys()].sort((x, y) => x - y).map((p) => scripthashes.map((h) => byPass.get(p)!.get(h) ?? NaN));
}

function noPasses(): Verdict {
  return { test: 'paired bootstrap', n: 0, changePct: null, ciPct: null, p: null, verdict: null, why: 'no per-pass samples were read' };
}

/**
 * Two servers of one run, B against A: an interleaved A/B comparison. In a bench run the bench
 * calls them in turn for every address; in an interleaved load run (`load --interleave`) they took
 * turns: either way the machine's drift over time hits both alike. The latest completed bench run
 * is compared if it measured both, and the latest finished load run if it was interleaved and
 * loaded both. Rows are named "B vs A". Names neither run has are the user's to fix.
 */
export function compareServers(db: string, a: string, b: string, options: VerdictOptions = {}): Comparison {
  const { bench, load: latestLoad } = contentsOf(db, { wallet: false });
  const load = latestLoad && latestLoad.turnMs !== null ? latestLoad : null;
  const has = (names: Array<{ label: string }>) => [a, b].every((n) => names.some((s) => s.label === n));
  const benched = bench !== null && has(bench.servers);
  const loaded = load !== null && has(load.servers);
  if (!benched && !loaded) {
    const labels = (servers: Array<{ label: string }>) => servers.map((s) => s.label).join(', ');
    const missingIn = (servers: Array<{ label: string }>) => [a, b].filter((n) => !servers.some((s) => s.label === n)).join(' or ');
    if (load === null) {
      // No interleaved load run: the bench run's names, or why there is none, as before.
      const model = bench ?? loadModel(db, { withPasses: true });
      throw new UserError(`--a/--b: no server named ${missingIn(model.servers)} in the latest completed run of ${db} (it has ${labels(model.servers)})`);
    }
    const benchPart = bench ? `its latest completed bench run has ${labels(bench.servers)}; ` : '';
    throw new UserError(`--a/--b: no server named ${missingIn(load.servers)} in ${db}: ${benchPart}its latest load run, interleaved, load run ${load.run.number}, has ${labels(load.servers)}`);
  }
  const comparison = benched ? compareServersOf(bench, a, b, options) : emptyComparison(options);
  if (loaded) comparison.loadPaired = { turnMs: load.turnMs!, rows: pairedLoadRows(load, a, b, options) };
  return comparison;
}

/**
 * An interleaved load run recorded as an A/B run (`load --baseline A --interleave D`): every other
 * server against A, turn by turn. Undefined for a run without a baseline.
 */
export function loadAbComparison(run: LoadRunReport, options: VerdictOptions = {}): Comparison | undefined {
  const a = run.baseline;
  if (a === null || run.turnMs === null || !run.servers.some((s) => s.label === a)) return undefined;
  const rows = run.servers.filter((s) => s.label !== a).flatMap((s) => pairedLoadRows(run, a, s.label, options));
  return { ...emptyComparison(options), loadPaired: { turnMs: run.turnMs, rows } };
}

/** Fewest rounds a turn-by-turn verdict stands on: the sign test's interval holds 95 % from 6, and it is used from 10 as the bench's from 10 addresses. */
export const MIN_ROUNDS = 10;

/** B's turns against A's of the same round, per percentile (both names in `run`). */
function pairedLoadRows(run: LoadRunReport, a: string, b: string, options: VerdictOptions): LoadPairedRow[] {
  const [sa, sb] = [a, b].map((n) => run.servers.find((s) => s.label === n)!);
  const rounds = sa.turns.map((t) => t.round).filter((r) => sb.turns.some((t) => t.round === r));
  const at = (s: LoadServerReport, round: number, key: 'p50Ms' | 'p99Ms') => s.turns.find((t) => t.round === round)?.[key] ?? NaN;
  return (['p50', 'p99'] as const).map((percentile) => {
    const key = `${percentile}Ms` as const;
    const verdict = pairsVerdict(
      rounds.map((r) => at(sa, r, key)),
      rounds.map((r) => at(sb, r, key)),
      { minSamples: MIN_ROUNDS, columns: 'rounds with a turn of both answered', ...options },
    );
    return { server: `${b} vs ${a}`, judged: b, percentile, pairs: verdict.n, a: sa.totals[key], b: sb.totals[key], verdict };
  });
}

/**
 * A run recorded as an A/B comparison (`bench --baseline A`): every other server of it against A,
 * one comparison. Undefined for a run without a baseline.
 */
export function abComparison(model: ReportModel, options: VerdictOptions = {}): Comparison | undefined {
  const a = model.baseline;
  if (a === undefined || !model.passes || !model.servers.some((s) => s.label === a)) return undefined;
  const parts = model.servers.filter((s) => s.label !== a).map((s) => compareServersOf(model, a, s.label, options));
  return {
    rows: parts.flatMap((p) => p.rows),
    noiseFloorPct: options.noiseFloorPct ?? DEFAULT_NOISE_FLOOR_PCT,
    onlyA: parts.flatMap((p) => p.onlyA),
    onlyB: parts.flatMap((p) => p.onlyB),
  };
}

/** Two servers of one model (read with its passes), B against A, rows named "B vs A". */
function compareServersOf(model: ReportModel, a: string, b: string, options: VerdictOptions): Comparison {
  const label = `${b} vs ${a}`;
  const only = (name: string): ReportModel => ({
    ...model,
    points: model.points.filter((p) => p.server === name).map((p) => ({ ...p, server: label })),
    passes: model.passes!.filter((p) => p.server === name).map((p) => ({ ...p, server: label })),
  });
  return compareModels(only(a), only(b), options);
}

/** The rows whose verdict is `slower` by more than `pct` percent: what --fail-on-regression fails on. */
export function regressions(c: Comparison, pct: number): Array<{ what: string; verdict: Verdict }> {
  const slower = [
    ...c.rows.map((r) => ({ what: `${r.server} ${r.method}`, verdict: r.verdict })),
    ...(c.load ?? []).map((r) => ({ what: `${r.server} load ${r.percentile}`, verdict: r.verdict })),
    ...(c.loadPaired?.rows ?? []).map((r) => ({ what: `${r.server} load ${r.percentile}`, verdict: r.verdict })),
    // A server's row over all its wallets, not each wallet's: those carry the drift between runs
    // that only the server's row accounts for (docs/findings/2026-11-24-verdicts.md).
    ...(c.wallet?.rows ?? []).filter((r) => r.wallet === null).map((r) => ({ what: `${r.server} ${c.wallet!.workload} sync of every wallet`, verdict: r.verdict })),
  ].filter((r) => r.verdict.verdict === 'slower' && r.verdict.changePct !== null && r.verdict.changePct > pct);
  // B stopped answering what A answered: the worst regression there is.
  const silent = c.rows.filter((r) => r.unanswered === 'b').map((r) => ({ what: `${r.server} ${r.method}`, verdict: r.verdict }));
  return [...slower, ...silent];
}

/** The bench rows of a comparison as a table: per server and method, both p50s and the verdict. */
export function compareTable(c: Comparison, title = 'delta'): Table {
  return {
    title,
    head: ['server', 'method', 'addresses', 'A p50 ms', 'B p50 ms', 'verdict: change [95 % interval], test'],
    align: ['left', 'left', 'right', 'right', 'right', 'left'],
    rows: c.rows.map((r) => [r.server, r.method, String(r.matched), fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
  };
}

/** The turn-by-turn rows of a comparison as a table, in the bench table's shape: per server and percentile, both and the verdict. */
export function pairedLoadTable(c: Comparison, title = 'load delta, turn by turn'): Table {
  return {
    title,
    head: ['server', 'latency', 'rounds', 'A ms', 'B ms', 'verdict: change [95 % interval], test'],
    align: ['left', 'left', 'right', 'right', 'right', 'left'],
    rows: (c.loadPaired?.rows ?? []).map((r) => [r.server, r.percentile, String(r.pairs), fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
  };
}

/** What a turn-by-turn table's verdicts mean, in one paragraph (the report's, the load summary's and compare's). */
export function pairedLoadNote(c: Comparison): string {
  const turn = c.loadPaired ? formatDuration(c.loadPaired.turnMs / 1000) : '?';
  return (
    `The servers took turns of ${turn} under the same load, one at a time, in rounds of one turn each (A B, then B A, …), so drift hits both alike. ` +
    "A and B ms: each server's whole-run percentile, latency from the intended send. The verdict: the median over rounds of the change of B's turn against A's in that round " +
    `(negative = B is faster), its 95 % interval from the sign test over the rounds (at least ${MIN_ROUNDS}); \`slower\` or \`faster\` only when the whole interval is on one side of zero ` +
    `and the change exceeds the noise floor (${c.noiseFloorPct} %), else \`~\` (no change).`
  );
}

/** What an A/B table's verdicts mean, in one paragraph (the report's and the bench summary's). */
export function abNote(c: Comparison): string {
  return (
    'Each server against the baseline (A), measured interleaved in one run (every address called on both in turn, so drift hits both alike). ' +
    'A and B p50: the median of the per-address medians. The verdict: the median per-address change of B against A (negative = B is faster), ' +
    "its 95 % interval from a paired bootstrap over the addresses and the run's passes; `slower` or `faster` only when the whole interval is on one side of zero " +
    `and the change exceeds the noise floor (${c.noiseFloorPct} %), else \`~\` (no change).`
  );
}

/** The title of two databases' comparison. */
export function deltaTitle(dbA: string, dbB: string): string {
  return `# Delta: B (${dbB}) vs A (${dbA})`;
}

export function compareMarkdown(c: Comparison, title: string): string {
  const floor = `\`slower\` or \`faster\` only when the whole interval is on one side of zero and the change exceeds the noise floor (${c.noiseFloorPct} %), else \`~\` (no change).`;
  const lines = [title];
  const benchCompared = (c.load === undefined && c.loadPaired === undefined && c.wallet === undefined && c.walletNote === undefined) || c.rows.length > 0 || c.onlyA.length > 0 || c.onlyB.length > 0;
  if (benchCompared) {
    const table = compareTable(c);
    lines.push(
      '',
      'A and B p50: the median of the per-address medians over the addresses both databases measured (latest completed run of each). ' +
        "The verdict: the median per-address change of B against A (negative = B is faster) with its 95 % interval from a paired bootstrap over the addresses and each run's passes; " +
        floor,
      '',
      markdownTable(table),
    );
    if (c.rows.length === 0) lines.push('', 'No (server, method, address) was measured in both databases.');
    if (c.onlyA.length) lines.push('', `Only in A: ${c.onlyA.join('; ')}.`);
    if (c.onlyB.length) lines.push('', `Only in B: ${c.onlyB.join('; ')}.`);
  }
  if (c.load !== undefined) {
    const table: Table = {
      title: 'load delta',
      head: ['server', 'latency', 'seconds A / B', 'A ms', 'B ms', 'verdict: change [95 % interval], test'],
      align: ['left', 'left', 'right', 'right', 'right', 'left'],
      rows: c.load.map((r) => [r.server, r.percentile, `${r.intervals[0]} / ${r.intervals[1]}`, fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
    };
    lines.push(
      '',
      '## Load',
      '',
      "The latest finished load run of each. A and B ms: the whole run's percentile (from the intended send). The verdict: the change of the median of each second's percentile, " +
        'B against A, with its 95 % interval from a bootstrap over each run\'s seconds (unpaired: two runs\' seconds are not the same moments); ' +
        floor,
      '',
      c.load.length > 0 ? markdownTable(table) : 'No server was loaded in both runs.',
    );
  }
  if (c.loadPaired !== undefined) {
    lines.push('', '## Load, turn by turn', '', `The latest finished load run, interleaved. ${pairedLoadNote(c)}`, '', markdownTable(pairedLoadTable(c)));
  }
  if (c.wallet !== undefined) {
    const table: Table = {
      title: 'wallet delta',
      head: ['server', 'wallet', 'txs', 'syncs A / B', 'A ms', 'B ms', 'verdict: change [95 % interval], test'],
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'left'],
      rows: c.wallet.rows.map((r) => [r.server, r.wallet ?? 'all', r.txs === null ? '' : String(r.txs), `${r.syncs[0]} / ${r.syncs[1]}`, fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
    };
    lines.push(
      '',
      `## Wallet syncs (${c.wallet.workload})`,
      '',
      'The latest completed wallet bench run of each. A and B ms: the median time to synced of the counted syncs (on an `all` row, the median of the wallets\' medians). ' +
        "The verdict on a server's `all` row: the median per-wallet change of B against A, its 95 % interval from a paired bootstrap over the wallets and each run's passes " +
        `(at least ${MIN_WALLETS} wallets, 2 passes a side); on a wallet's row: the change of its median, from a bootstrap over each run's syncs of it (unpaired; at least 10 counted syncs a side, so \`--passes 11\` or more). ` +
        floor,
      '',
      c.wallet.rows.length > 0 ? markdownTable(table) : 'No wallet was synced on one server in both runs.',
    );
  }
  if (c.walletNote !== undefined) lines.push('', '## Wallet syncs', '', c.walletNote);
  return lines.join('\n') + '\n';
}
