/**
 * How often the wallet-sync verdicts call a change where there is none: 2·N wallet bench runs of one
 * lab server (`--workload W`, the lab's wallets), one after another, compared in pairs (run 1 vs 2,
 * 3 vs 4, …), and each run split in halves (odd passes against even ones). Prints, for the server's
 * verdict over all wallets and for the per-wallet verdicts apart, the share of `slower` / `faster`
 * at the noise floor, with every verdict that called one.
 *
 *   npx tsx bench/wallet-verdict-calibration.ts [--server electrumx] [--workload electrum] [--pairs 20] [--passes 11] [--floor 2]
 *
 * The lab must be up. The databases go to a temporary directory, removed at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { labStatus } from '../src/lab/lab';
import { compareWalletRuns, type WalletSyncs } from '../src/verdicts/wallet';
import type { WalletCompareRow } from '../src/verdicts/comparison';
import { latestRunsOf } from '../src/verdicts/databases';
import { verdictText } from '../src/verdicts/verdict';
import { flag } from './args';
// `load` and `bench` as users run them, with the launchers' node options.
import ENGINE from '../bin/engine-node-flags.json';

const SERVER = flag('server', 'electrumx');
const WORKLOAD = flag('workload', 'electrum');
const PAIRS = Number(flag('pairs', '20'));
const PASSES = Number(flag('passes', '11'));
const FLOOR = Number(flag('floor', '2'));
const REPO = path.join(__dirname, '..');

function walletRun(db: string): WalletSyncs[] {
  return latestRunsOf(db, { bench: false, load: false }).wallet!.syncs;
}

/** The run with only the syncs of the passes `keep` says (for the split halves). */
function passesOnly(run: WalletSyncs[], keep: (pass: number) => boolean): WalletSyncs[] {
  return run.map((p) => ({ ...p, okSyncs: p.okSyncs.filter((s) => keep(s.pass)) }));
}

async function main(): Promise<void> {
  const lab = await labStatus();
  const server = lab.electrum[SERVER as keyof typeof lab.electrum];
  if (!server?.running) throw new Error(`no running lab server named ${SERVER} (npm run lab -- up)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'electrum-bench-wallet-aa-'));
  try {
    const runs: WalletSyncs[][] = [];
    for (let i = 0; i < 2 * PAIRS; i++) {
      const db = path.join(dir, `run-${i}.sqlite`);
      const r = spawnSync(
        process.execPath,
        [...ENGINE.flags, '--import', 'tsx', 'src/cli/bench.ts', '--no-progress', '--server', `x=${SERVER}@${server.host}:${server.port}`, '--workload', WORKLOAD, '--wallets', lab.walletsPath, '--passes', String(PASSES), '--db', db],
        { cwd: REPO, encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(`wallet bench into ${db} exited ${r.status}: ${r.stderr.slice(-500)}`);
      runs.push(walletRun(db));
      process.stderr.write(`run ${i + 1}/${2 * PAIRS}\n`);
    }
    const tally = (label: string, comparisons: WalletCompareRow[][]) => {
      for (const [kind, pick] of [
        ['over all wallets', (r: WalletCompareRow) => r.wallet === null],
        ['per wallet', (r: WalletCompareRow) => r.wallet !== null],
      ] as const) {
        let verdicts = 0;
        const called: string[] = [];
        comparisons.forEach((rows, k) => {
          for (const row of rows.filter(pick)) {
            if (row.verdict.verdict === null) continue;
            verdicts++;
            if (row.verdict.verdict !== 'no change') called.push(`  ${label} ${k + 1}, ${row.wallet ?? 'all'}: ${verdictText(row.verdict)}`);
          }
        });
        console.log(`${label}, ${kind}: ${called.length} of ${verdicts} verdicts called a change (${((100 * called.length) / Math.max(1, verdicts)).toFixed(1)} %) at a ${FLOOR} % floor`);
        for (const line of called) console.log(line);
      }
    };
    console.log(`${SERVER}, ${2 * PAIRS} wallet bench runs (${WORKLOAD}) of ${PASSES} passes (1 warm-up), ${runs[0].length} wallets`);
    const options = { noiseFloorPct: FLOOR };
    tally('separate runs', Array.from({ length: PAIRS }, (_, k) => compareWalletRuns(runs[2 * k], runs[2 * k + 1], options)));
    tally('halves of a run', runs.map((r) => compareWalletRuns(passesOnly(r, (p) => p % 2 === 1), passesOnly(r, (p) => p % 2 === 0), { ...options, minSamples: 5 })));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
