/**
 * End-of-run statistics in bounded memory: a synthetic run of N samples (default 10 M) is written
 * to a scratch database, then computeStatistics runs in a fresh process whose peak RSS is read
 * from the kernel (getrusage). The baseline, measured in the same run, is the same computation over
 * a run of 100 k samples: the ratio shows whether memory grows with the sample count.
 *
 *   npx tsx bench/statistics-memory.ts [--samples 10000000] [--keep DIR]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ResultsStore } from '../src/store/results';
import { computeStatistics } from '../src/store/statistics';
import { seededRandom } from '../src/core/random';
import { flag } from './args';

const SERVERS = 2;
const METHODS = ['balance', 'history', 'utxos'];
const PASSES = 11; // one warm-up

/** Writes a run of about `samples` samples (latencies log-normal-ish, 2 % errors). */
function writeRun(file: string, samples: number): void {
  const addresses = Math.max(1, Math.round(samples / (SERVERS * METHODS.length * PASSES)));
  const store = ResultsStore.open(file);
  const lines = Array.from({ length: addresses }, (_, i) => ({
    address: null,
    scripthash: i.toString(16).padStart(64, '0'),
    type: 'nonstandard' as const,
    txCount: 1 + (i % 1000),
    utxoCount: 1,
    balance: { confirmed: 1, unconfirmed: 0 },
  }));
  const { runId, serverIds } = store.createRun(
    {
      started_at: new Date().toISOString(),
      tool_version: 'bench',
      git_commit: null,
      node_version: process.version,
      host_json: '{}',
      config_json: '{}',
      dataset_id: 'synthetic',
      dataset_path: 'synthetic',
      dataset_hash: 'synthetic',
      dataset_lines: addresses,
      passes: PASSES,
      warmup: 1,
      methods: METHODS.join(','),
      call_order: 'address',
    },
    Array.from({ length: SERVERS }, (_, i) => ({ name: `s${i}`, profile: 'generic', url: 'tcp://127.0.0.1:1', software: null, protocol: null, banner: null, features_json: null })),
    lines,
  );
  store.setRun(runId);
  const rand = seededRandom('statistics-memory');
  for (let pass = 0; pass < PASSES; pass++) {
    for (let a = 0; a < addresses; a++) {
      for (const serverId of serverIds) {
        for (const method of METHODS) {
          const error = rand() < 0.02;
          store.add({
            serverId,
            pass,
            warmup: pass === 0,
            addressIdx: a,
            method,
            atMs: 0,
            latencyNs: BigInt(Math.round(200_000 * Math.exp(3 * rand()))),
            responseBytes: 100,
            resultSize: 1,
            status: error ? 'timeout' : 'ok',
            error: null,
            tipHeight: null,
            mismatch: null,
          });
          if (store.flushDue) store.flush();
        }
      }
    }
  }
  store.close();
}

/** In a fresh process: open, compute, report peak RSS and time. */
function measure(file: string): { peakRssMb: number; seconds: number; samples: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', file], { encoding: 'utf8', cwd: path.resolve(__dirname, '..') });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

function child(file: string): void {
  const store = ResultsStore.open(file);
  const { n } = store.db.prepare('SELECT count(*) AS n FROM samples').get() as { n: number };
  const t0 = process.hrtime.bigint();
  computeStatistics(store, 1);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  store.close();
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ peakRssMb, seconds, samples: n }) + '\n');
}

function main(): void {
  if (process.argv[2] === '--child') return child(process.argv[3]);
  const samples = Number(flag('samples', '10000000'));
  const dir = flag('keep', '') || fs.mkdtempSync(path.join(os.tmpdir(), 'eb-statmem-'));
  fs.mkdirSync(dir, { recursive: true });
  try {
    const small = path.join(dir, 'baseline.sqlite');
    const big = path.join(dir, 'big.sqlite');
    if (!fs.existsSync(small)) writeRun(small, 100_000);
    const t0 = Date.now();
    if (!fs.existsSync(big)) writeRun(big, samples);
    process.stderr.write(`wrote the synthetic runs in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    const a = measure(small);
    const b = measure(big);
    console.log(`baseline: ${a.samples.toLocaleString('en')} samples, statistics in ${a.seconds.toFixed(2)} s, peak RSS ${a.peakRssMb.toFixed(0)} MB`);
    console.log(`large:    ${b.samples.toLocaleString('en')} samples, statistics in ${b.seconds.toFixed(2)} s, peak RSS ${b.peakRssMb.toFixed(0)} MB`);
    console.log(`peak RSS ratio large / baseline: ${(b.peakRssMb / a.peakRssMb).toFixed(2)}x for ${(b.samples / a.samples).toFixed(0)}x the samples`);
  } finally {
    if (!flag('keep', '')) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
