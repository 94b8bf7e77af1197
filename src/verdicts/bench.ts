/**
 * "Did it regress?" for bench runs: per server and method, B against A paired by address (the
 * addresses measured on both sides), with each address's latency in every counted pass resampled
 * (src/verdicts/verdict.ts, `pairedVerdict`). Only addresses measured in both count, so a dataset
 * that grew between rounds does not show up as a speed change. A and B are two runs (two databases,
 * e.g. two versions of one server) or two servers of one run (`bench --baseline`, or `report compare
 * --a --b`), whose calls were interleaved address by address.
 */
import { medianOfUnsorted } from '../core/quantiles';
import { benchBaselineOf } from '../core/ab-setup';
import type { ResultsStore, RunRecord } from '../store/results';
import { ResultsReader } from '../store/read';
import { DEFAULT_NOISE_FLOOR_PCT, pairedVerdict, type Verdict, type VerdictOptions } from './verdict';
import { regressionLines, type AbVerdicts, type CompareRow, type Comparison } from './comparison';

/** One address's median on one server for one method (ms; null when every counted call of it failed). */
export interface AddressMedian {
  server: string;
  method: string;
  scripthash: string;
  medianMs: number | null;
}

/** One counted, answered call: its latency in its pass. */
export interface PassLatency {
  server: string;
  method: string;
  pass: number;
  scripthash: string;
  latencyMs: number;
}

/** One bench run as its verdicts read it: its servers' names, every address's median and every counted call by pass. */
export interface BenchRunLatency {
  servers: string[];
  points: AddressMedian[];
  passes: PassLatency[];
  /** The server the run was recorded to be judged against (`bench --baseline`): an A/B run. */
  baseline?: string;
}

/** What one bench run stored that its verdicts stand on. */
export function readBenchRun(reader: ResultsReader, run: RunRecord): BenchRunLatency {
  const nameOf = new Map(reader.benchServers(run.id).map((s) => [s.id, s.name]));
  const points = reader.medians([run.id]).flatMap((r) => {
    const server = nameOf.get(r.server_id);
    return server === undefined ? [] : [{ server, method: r.method, scripthash: r.scripthash, medianMs: r.median_ns === null ? null : r.median_ns / 1e6 }];
  });
  const passes = reader.passLatencies([run.id]).flatMap((r) => {
    const server = nameOf.get(r.server_id);
    return server === undefined ? [] : [{ server, method: r.method, pass: r.pass, scripthash: r.scripthash, latencyMs: r.latency_ns / 1e6 }];
  });
  const baseline = benchBaselineOf(run.config_json);
  return { servers: [...nameOf.values()], points, passes, ...(baseline !== undefined ? { baseline } : {}) };
}

const SEP = '\u0000';

function mediansByKey(run: BenchRunLatency): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of run.points) if (p.medianMs !== null) m.set([p.server, p.method, p.scripthash].join(SEP), p.medianMs);
  return m;
}

function measured(run: BenchRunLatency): Set<string> {
  return new Set(run.points.map((p) => `${p.server} ${p.method}`));
}

/** Per server and method, B against A, paired by address. */
export function compareBenchRuns(runA: BenchRunLatency, runB: BenchRunLatency, options: VerdictOptions = {}): Comparison {
  const a = mediansByKey(runA);
  const b = mediansByKey(runB);
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
  const passesA = passMatrices(runA);
  const passesB = passMatrices(runB);
  const rows: CompareRow[] = [...groups.entries()]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([key, g]) => {
      const [server, method] = key.split(SEP);
      const [ra, rb] = [passesA.get(key), passesB.get(key)];
      const verdict =
        ra && rb
          ? pairedVerdict(matrixOf(ra, g.scripthashes), matrixOf(rb, g.scripthashes), { ...options, seed: options.seed ?? `${server} ${method}` })
          : noPasses();
      const ma = medianOfUnsorted(g.a);
      const mb = medianOfUnsorted(g.b);
      return { server, method, matched: g.a.length, a: ma, b: mb, changePct: ma && mb !== null ? ((mb - ma) / ma) * 100 : null, verdict };
    });
  const pa = measured(runA);
  const pb = measured(runB);
  // A method measured on both sides whose calls all failed on one of them has no pair to judge:
  // it gets a row saying so (and fails --fail-on-regression when it is B's), never silence.
  const answered = (run: BenchRunLatency, key: string) => run.points.some((p) => `${p.server} ${p.method}` === key && p.medianMs !== null);
  for (const key of [...pa].filter((k) => pb.has(k)).sort()) {
    const [server, method] = [key.slice(0, key.lastIndexOf(' ')), key.slice(key.lastIndexOf(' ') + 1)];
    if (groups.has(server + SEP + method)) continue;
    const [inA, inB] = [answered(runA, key), answered(runB, key)];
    const unanswered = !inA && !inB ? 'both' : !inB ? 'b' : !inA ? 'a' : undefined;
    if (!unanswered) continue;
    const why = unanswered === 'both' ? 'no address was answered in A or B' : `no address was answered in ${unanswered.toUpperCase()} (every call failed)`;
    rows.push({ server, method, matched: 0, a: null, b: null, changePct: null, verdict: { ...noPasses(), why }, unanswered });
  }
  return { rows, noiseFloorPct: options.noiseFloorPct ?? DEFAULT_NOISE_FLOOR_PCT, onlyA: [...pa].filter((k) => !pb.has(k)).sort(), onlyB: [...pb].filter((k) => !pa.has(k)).sort() };
}

/** Per (server, method): each pass's latency per address (scripthash). */
function passMatrices(run: BenchRunLatency): Map<string, Map<number, Map<string, number>>> {
  const out = new Map<string, Map<number, Map<string, number>>>();
  for (const p of run.passes) {
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

/** Two servers of one run, B against A, rows named "B vs A": their calls were interleaved, so drift hits both alike. */
export function compareBenchServers(run: BenchRunLatency, a: string, b: string, options: VerdictOptions = {}): Comparison {
  const label = `${b} vs ${a}`;
  const only = (name: string): BenchRunLatency => ({
    servers: [label],
    points: run.points.filter((p) => p.server === name).map((p) => ({ ...p, server: label })),
    passes: run.passes.filter((p) => p.server === name).map((p) => ({ ...p, server: label })),
  });
  return compareBenchRuns(only(a), only(b), options);
}

/**
 * A run recorded as an A/B comparison (`bench --baseline A`): every other server of it against A,
 * one comparison. Undefined for a run without a baseline.
 */
export function benchAbComparison(run: BenchRunLatency, options: VerdictOptions = {}): Comparison | undefined {
  const a = run.baseline;
  if (a === undefined || !run.servers.includes(a)) return undefined;
  const parts = run.servers.filter((s) => s !== a).map((s) => compareBenchServers(run, a, s, options));
  return {
    rows: parts.flatMap((p) => p.rows),
    noiseFloorPct: options.noiseFloorPct ?? DEFAULT_NOISE_FLOOR_PCT,
    onlyA: parts.flatMap((p) => p.onlyA),
    onlyB: parts.flatMap((p) => p.onlyB),
  };
}

/** The verdicts of bench run `runId` as stored, for the command that just ran it; undefined for a run without a baseline. */
export function benchAbVerdicts(results: ResultsStore, runId: number, failOnPct: number | undefined): AbVerdicts | undefined {
  const reader = new ResultsReader(results);
  const run = reader.benchRuns().find((r) => r.id === runId);
  if (!run) return undefined;
  const latency = readBenchRun(reader, run);
  const comparison = benchAbComparison(latency);
  if (!comparison) return undefined;
  return { baseline: latency.baseline!, comparison, regressed: regressionLines(comparison, failOnPct) };
}
