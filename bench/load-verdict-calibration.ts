/**
 * How often an interleaved load run's verdict calls a change where there is none: N interleaved
 * load runs of one lab server under two names (`load --server a=S --server b=S --interleave T
 * --baseline a`), each judged turn by turn at the noise floor, p50 and p99. Prints the share of
 * `slower` / `faster` verdicts with every one called, and the order effect the turns' order cancels:
 * over all rounds, how the second turn of a round compares with the first (in rounds where a went
 * first and where b did), which a schedule of A B, A B, … would have turned into a bias of B.
 *
 *   npx tsx bench/load-verdict-calibration.ts [--server electrumx] [--runs 20] [--rate 100] [--duration 10s] [--interleave 1s] [--floor 2]
 *
 * The lab must be up. Each run takes 2 × --duration plus about 5 s; the databases go to a
 * temporary directory, removed at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { labStatus } from '../src/lab/lab';
import { compareServers } from '../src/verdicts/databases';
import { readLoadRun } from '../src/report/load-read';
import type { LoadRunReport } from '../src/report/load-model';
import { ResultsStore } from '../src/store/results';
import { ResultsReader } from '../src/store/read';
import { verdictText } from '../src/verdicts/verdict';
import { medianOfUnsorted } from '../src/core/quantiles';
import { flag } from './args';
// `load` and `bench` as users run them, with the launchers' node options.
import ENGINE from '../bin/engine-node-flags.json';

const SERVER = flag('server', 'electrumx');
const RUNS = Number(flag('runs', '20'));
const RATE = flag('rate', '100');
const DURATION = flag('duration', '10s');
const INTERLEAVE = flag('interleave', '1s');
const FLOOR = Number(flag('floor', '2'));
const REPO = path.join(__dirname, '..');

function loadRun(db: string): LoadRunReport {
  const store = ResultsStore.open(db, { readonly: true });
  try {
    const reader = new ResultsReader(store);
    return readLoadRun(reader, reader.loadRuns().at(-1)!, 'latest');
  } finally {
    store.close();
  }
}

const pct = (logRatio: number) => `${logRatio >= 0 ? '+' : '−'}${Math.abs((Math.exp(logRatio) - 1) * 100).toFixed(1)} %`;

async function main(): Promise<void> {
  const lab = await labStatus();
  const server = lab.electrum[SERVER as keyof typeof lab.electrum];
  if (!server?.running) throw new Error(`no running lab server named ${SERVER} (npm run lab -- up)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'electrum-bench-load-aa-'));
  const started = Date.now();
  try {
    let verdicts = 0;
    const called: string[] = [];
    const generatorBound: number[] = [];
    // log(second turn / first turn) of every round, by who went first and percentile.
    const second: Record<'a' | 'b', Record<'p50Ms' | 'p99Ms', number[]>> = { a: { p50Ms: [], p99Ms: [] }, b: { p50Ms: [], p99Ms: [] } };
    for (let i = 0; i < RUNS; i++) {
      const db = path.join(dir, `aa-${i}.sqlite`);
      const targets = ['a', 'b'].flatMap((n) => ['--server', `${n}=${SERVER}@${server.host}:${server.port}`]);
      const args = [...targets, '--dataset', lab.datasetPath, '--rate', RATE, '--duration', DURATION, '--interleave', INTERLEAVE, '--baseline', 'a', '--db', db, '--no-progress'];
      const r = spawnSync(process.execPath, [...ENGINE.flags, '--import', 'tsx', 'src/cli/load.ts', ...args], { cwd: REPO, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`load into ${db} exited ${r.status}: ${r.stderr.slice(-500)}`);
      const run = loadRun(db);
      if (run.servers.some((s) => s.generator?.bound)) generatorBound.push(i + 1);
      const [a, b] = run.servers;
      for (const ta of a.turns) {
        const tb = b.turns.find((t) => t.round === ta.round);
        if (!tb) continue;
        // Even rounds go a b, odd ones b a.
        const first = ta.round % 2 === 0 ? 'a' : 'b';
        for (const key of ['p50Ms', 'p99Ms'] as const) {
          if (!(ta[key]! > 0 && tb[key]! > 0)) continue;
          const [x, y] = first === 'a' ? [ta[key]!, tb[key]!] : [tb[key]!, ta[key]!];
          second[first][key].push(Math.log(y / x));
        }
      }
      for (const row of compareServers(db, 'a', 'b', { noiseFloorPct: FLOOR }).loadPaired!.rows) {
        if (row.verdict.verdict === null) continue;
        verdicts++;
        if (row.verdict.verdict !== 'no change') called.push(`  run ${i + 1}, ${row.percentile}: ${verdictText(row.verdict)}`);
      }
      process.stderr.write(`run ${i + 1}/${RUNS}\n`);
    }
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    console.log(`${SERVER} under two names, ${RUNS} interleaved load runs: --rate ${RATE} --duration ${DURATION} --interleave ${INTERLEAVE}, ${minutes} min`);
    console.log(`interleaved A/A: ${called.length} of ${verdicts} verdicts called a change (${((100 * called.length) / Math.max(1, verdicts)).toFixed(1)} %) at a ${FLOOR} % floor`);
    for (const line of called) console.log(line);
    if (generatorBound.length) console.log(`generator-bound (flagged in the summary): run${generatorBound.length > 1 ? 's' : ''} ${generatorBound.join(', ')}`);
    console.log('order within a round: the second turn against the first, median over rounds (mean)');
    for (const key of ['p50Ms', 'p99Ms'] as const) {
      const all = [...second.a[key], ...second.b[key]];
      const line = (xs: number[]) => `${pct(medianOfUnsorted(xs) ?? 0)} (${pct(xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length))}, n=${xs.length})`;
      console.log(`  ${key.slice(0, 3)}: a first ${line(second.a[key])}; b first ${line(second.b[key])}; all rounds ${line(all)}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
