/**
 * How often the verdict calls a change where there is none (issue #21's A/A calibration): 2·N bench
 * runs of one lab server, one after another, compared in pairs (run 1 vs 2, 3 vs 4, …); each run
 * split in halves (its odd passes against its even ones); and N interleaved runs of the same server
 * under two names (`--server a=S --server b=S`, compared as `report compare --a a --b b`). Prints the
 * share of `slower` / `faster` verdicts at the noise floor, per kind, with every verdict called.
 *
 *   npx tsx bench/verdict-calibration.ts [--server electrumx] [--pairs 20] [--passes 10] [--floor 2]
 *
 * The server is a lab server (the lab must be up); each run uses the lab's dataset and the bench's
 * defaults otherwise. The databases go to a temporary directory, removed at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { labStatus } from '../src/lab/lab';
import { compareBenchRuns, type BenchRunLatency } from '../src/verdicts/bench';
import { compareServers, latestRunsOf } from '../src/verdicts/databases';
import type { Comparison } from '../src/verdicts/comparison';
import { verdictText } from '../src/verdicts/verdict';
import { flag } from './args';
// `load` and `bench` as users run them, with the launchers' node options.
import ENGINE from '../bin/engine-node-flags.json';

const SERVER = flag('server', 'electrumx');
const PAIRS = Number(flag('pairs', '20'));
const PASSES = Number(flag('passes', '10'));
const FLOOR = Number(flag('floor', '2'));
const REPO = path.join(__dirname, '..');

/** One run with only the passes `keep` says (for the split halves). */
function passesOnly(run: BenchRunLatency, keep: (pass: number) => boolean): BenchRunLatency {
  return { ...run, passes: run.passes.filter((p) => keep(p.pass)) };
}

async function main(): Promise<void> {
  const lab = await labStatus();
  const server = lab.electrum[SERVER as keyof typeof lab.electrum];
  if (!server?.running) throw new Error(`no running lab server named ${SERVER} (npm run lab -- up)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'electrum-bench-aa-'));
  try {
    const bench = (db: string, names: string[]) => {
      const targets = names.flatMap((n) => ['--server', `${n}=${SERVER}@${server.host}:${server.port}`]);
      const r = spawnSync(process.execPath, [...ENGINE.flags, '--import', 'tsx', 'src/cli/bench.ts', '--no-progress', ...targets, '--dataset', lab.datasetPath, '--passes', String(PASSES), '--db', db], { cwd: REPO, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`bench into ${db} exited ${r.status}: ${r.stderr.slice(-500)}`);
    };
    const runs: BenchRunLatency[] = [];
    for (let i = 0; i < 2 * PAIRS; i++) {
      const db = path.join(dir, `run-${i}.sqlite`);
      bench(db, ['x']);
      runs.push(latestRunsOf(db, { load: false, wallet: false }).bench!);
      process.stderr.write(`run ${i + 1}/${2 * PAIRS}\n`);
    }
    const interleaved: Comparison[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const db = path.join(dir, `ab-${i}.sqlite`);
      bench(db, ['a', 'b']);
      interleaved.push(compareServers(db, 'a', 'b', { noiseFloorPct: FLOOR }));
      process.stderr.write(`interleaved run ${i + 1}/${PAIRS}\n`);
    }
    const tally = (label: string, comparisons: Comparison[]) => {
      let verdicts = 0;
      const called: string[] = [];
      comparisons.forEach((c, k) => {
        for (const row of c.rows) {
          if (row.verdict.verdict === null) continue;
          verdicts++;
          if (row.verdict.verdict !== 'no change') called.push(`  ${label} ${k + 1}, ${row.method}: ${verdictText(row.verdict)}`);
        }
      });
      console.log(`${label}: ${called.length} of ${verdicts} verdicts called a change (${((100 * called.length) / Math.max(1, verdicts)).toFixed(1)} %) at a ${FLOOR} % floor`);
      for (const line of called) console.log(line);
    };
    console.log(`${SERVER}, ${2 * PAIRS} bench runs of ${PASSES} passes (1 warm-up), ${runs[0].points.length / 3} addresses`);
    const options = { noiseFloorPct: FLOOR };
    tally('separate runs', Array.from({ length: PAIRS }, (_, k) => compareBenchRuns(runs[2 * k], runs[2 * k + 1], options)));
    tally('halves of a run', runs.map((m) => compareBenchRuns(passesOnly(m, (p) => p % 2 === 1), passesOnly(m, (p) => p % 2 === 0), options)));
    tally('interleaved A/A', interleaved);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
