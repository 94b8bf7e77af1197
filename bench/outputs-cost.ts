/**
 * What watching a run costs the generator: the same load at 400/s against a lab server, run with
 * no output, with `--out json`, with `--out prometheus-rw` into the lab's Prometheus, and with
 * `--dashboard` (one event-stream client reading it) plus `--dashboard-export`. The variants take
 * turns round after round, so the machine's drift falls on all alike. Per variant it prints the
 * generator's CPU during the run (its own `cpuUtilisation`, % of one core), the same process's CPU
 * from start to exit as the kernel counts it (bash's `time`: a second count, startup included),
 * the lag p99 and the answered total; then each variant's CPU over the plain run's, as the median
 * of the per-round ratios with their range.
 *
 *   npx tsx bench/outputs-cost.ts [--server fulcrum] [--rate 400] [--duration 20s] [--rounds 3]
 *
 * The lab must be up with its Prometheus. The machine is shared: read the spread, not one figure.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { labStatus } from '../src/lab/lab';
import { medianOfUnsorted } from '../src/core/quantiles';
import { flag } from './args';
// `load` and `bench` as users run them, with the launchers' node options.
import ENGINE from '../bin/engine-node-flags.json';

const SERVER = flag('server', 'fulcrum');
const RATE = flag('rate', '400');
const DURATION = flag('duration', '20s');
const ROUNDS = Number(flag('rounds', '3'));
const ROOT = path.resolve(__dirname, '..');

interface Variant {
  name: string;
  args: (dir: string, remoteWrite: string) => string[];
  /** Connects to the dashboard's event stream once the run prints its URL. */
  watch?: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'none', args: () => [] },
  { name: 'json', args: (dir) => ['--out', `json=${path.join(dir, 'out.jsonl')}`] },
  { name: 'prometheus-rw', args: (_, rw) => ['--out', `prometheus-rw=${rw}`] },
  { name: 'dashboard', args: (dir) => ['--dashboard', '0', '--dashboard-export', path.join(dir, 'run.html')], watch: true },
];

interface Measured {
  cpu: number; // fraction of a core during the run
  processCpuS: number; // user + sys seconds, start to exit
  lagP99Ms: number;
  answered: number;
  events: number; // bytes of event stream read (dashboard only)
}

function runOnce(v: Variant, dir: string, dataset: string, remoteWrite: string): Promise<Measured> {
  const load = [process.execPath, ...ENGINE.flags, '--import', 'tsx', path.join(ROOT, 'src/cli/load.ts'), '--server', SERVER, '--dataset', dataset, '--rate', RATE, '--duration', DURATION, '--no-progress', '--json', '--db', path.join(dir, `${v.name}-${Date.now()}.sqlite`), ...v.args(dir, remoteWrite)];
  // bash's `time` reports the process's CPU as the kernel counted it, on stderr's last line.
  const script = `TIMEFORMAT='cpu %U %S'; time ${load.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let events = 0;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = v.watch && events === 0 ? /dashboard: (http:\/\/\S+)/.exec(stderr) : null;
      if (m) {
        events = 1;
        http.get(`${m[1]}events`, (res) => res.on('data', (d: Buffer) => (events += d.length))).on('error', () => undefined);
      }
    });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${v.name}: exit ${code}: ${stderr.slice(-500)}`));
      const summary = JSON.parse(stdout) as { servers: Array<{ answered: number; generator: { cpuUtilisation: number; lagP99Us: number } }> };
      const time = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      const s = summary.servers[0];
      resolve({ cpu: s.generator.cpuUtilisation, processCpuS: time ? Number(time[1]) + Number(time[2]) : NaN, lagP99Ms: s.generator.lagP99Us / 1000, answered: s.answered, events });
    });
  });
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const range = (xs: number[], f: (x: number) => string) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;

async function main(): Promise<void> {
  const status = await labStatus();
  if (!status.prometheus) throw new Error('the lab runs no Prometheus: npm run lab -- up (without --without prometheus)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-outputs-cost-'));
  const results = new Map<string, Measured[]>(VARIANTS.map((v) => [v.name, []]));
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const v of VARIANTS) {
        const m = await runOnce(v, dir, status.datasetPath, status.prometheus.remoteWrite);
        results.get(v.name)!.push(m);
        process.stdout.write(`round ${round} ${v.name.padEnd(14)} generator CPU ${pct(m.cpu)}, process CPU ${m.processCpuS.toFixed(2)} s, lag p99 ${m.lagP99Ms.toFixed(2)} ms, answered ${m.answered}${v.watch ? `, ${m.events} bytes of events read` : ''}\n`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const base = results.get('none')!;
  process.stdout.write(`\n${SERVER} at ${RATE}/s for ${DURATION}, ${ROUNDS} rounds (median, range):\n`);
  for (const v of VARIANTS) {
    const ms = results.get(v.name)!;
    const cpu = ms.map((m) => m.cpu);
    const ratios = ms.map((m, i) => m.cpu / base[i].cpu);
    const extra = ms.map((m, i) => m.cpu - base[i].cpu);
    process.stdout.write(
      `${v.name.padEnd(14)} generator CPU ${pct(medianOfUnsorted(cpu)!)} (${range(cpu, pct)}); ` +
        (v.name === 'none' ? 'the baseline' : `× ${medianOfUnsorted(ratios)!.toFixed(2)} of none (${range(ratios, (x) => x.toFixed(2))}), +${pct(medianOfUnsorted(extra)!)} of a core`) +
        `; process CPU ${medianOfUnsorted(ms.map((m) => m.processCpuS))!.toFixed(2)} s; lag p99 ${medianOfUnsorted(ms.map((m) => m.lagP99Ms))!.toFixed(2)} ms\n`,
    );
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
