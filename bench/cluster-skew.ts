/**
 * The start skew of a coordinated test: `cluster simulate` run again and again against a lab
 * server, each time the merged summary's skew (max − min of the shards' actual starts) read back
 * from its --summary-export; printed per run, with the median and the spread. Beside it, a check
 * from the other end: the merged run's first second must hold every shard's share of the rate
 * (a shard that started a second apart from the others would leave it short).
 *
 *   npx tsx bench/cluster-skew.ts [--shards 4] [--repeat 5] [--server electrumx] [--rate 200]
 *
 * The lab must be up. On this machine the shards share its 2 cores with the server, so the skew is
 * mostly how soon each process gets a core at the start instant.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { labStatus } from '../src/lab/lab';
import { medianOfUnsorted } from '../src/core/quantiles';
import { flag } from './args';

const SHARDS = flag('shards', '4');
const REPEAT = Number(flag('repeat', '5'));
const SERVER = flag('server', 'electrumx');
const RATE = flag('rate', '200');
const ROOT = path.resolve(__dirname, '..');

async function main(): Promise<void> {
  const status = await labStatus();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-skew-'));
  const skews: number[] = [];
  try {
    for (let i = 0; i < REPEAT; i++) {
      const db = path.join(dir, `run-${i}.sqlite`);
      const summary = path.join(dir, `run-${i}.json`);
      const args = ['--import', 'tsx', path.join(ROOT, 'src/cli/cluster.ts'), 'simulate', '--shards', SHARDS, '--', 'load', '--server', SERVER, '--dataset', status.datasetPath, '--rate', RATE, '--duration', '3s', '--no-progress', '--db', db, '--summary-export', summary];
      await promisify(execFile)(process.execPath, args, { cwd: ROOT, maxBuffer: 64 << 20 });
      const skew = JSON.parse(fs.readFileSync(summary, 'utf8')).startSkew[SERVER].skewMs as number;
      const d = new Database(db, { readonly: true });
      const starts = (JSON.parse((d.prepare("SELECT config_json FROM runs WHERE kind = 'load'").get() as { config_json: string }).config_json).merge as unknown[]).length;
      const first = d.prepare('SELECT target_rate AS target, sent FROM load_intervals WHERE idx = 0').get() as { target: number; sent: number };
      d.close();
      skews.push(skew);
      process.stdout.write(`run ${i + 1}: start skew ${skew.toFixed(3)} ms over ${starts} shards; merged first second: target ${first.target}/s of ${RATE}/s, ${first.sent} sent\n`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const sorted = [...skews].sort((a, b) => a - b);
  process.stdout.write(`\n${SHARDS} shards, ${REPEAT} runs: start skew median ${medianOfUnsorted(skews)!.toFixed(3)} ms, min ${sorted[0].toFixed(3)}, max ${sorted.at(-1)!.toFixed(3)} (goal ≤ 5 ms)\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
