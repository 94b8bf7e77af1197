/**
 * Our load generator against peers doing the same work at the same rate, in one run (issue #19):
 *
 *   rest      the lab's Esplora REST API, `GET /scripthash/:hash` at a constant arrival rate: k6
 *             v0.54 (its constant-arrival-rate executor) vs `load --mix balance=1`
 *   electrum  an Electrum server, `blockchain.scripthash.get_balance` at the same constant rate:
 *             a raw pipelining socket loop of our own (a 1 ms timer, one socket) vs `load
 *             --connections 1` (one socket too: Blockstream's electrs holds a small reply until
 *             the next request on its connection acknowledges the last, so the number of sockets
 *             alone moves its latency by the gap between requests on each)
 *
 * For each tool: p50 and p99 latency and CPU per request, repeated (tools alternating, so machine
 * drift hits both alike), then the ratios ours ÷ peer of the medians with their spread. CPU is read
 * from /proc for the tool's whole process tree over the middle half of its life, so start-up (tsx's
 * compile, k6's script load) and exit are left out alike. Latency: k6 and the raw loop time each
 * request from its actual send; `load` from its intended send (latency) and from its write
 * (service): both are printed, the intended-send figure being the stricter.
 *
 *   npx tsx bench/peers.ts [rest|electrum|all] [--rate 400] [--seconds 30] [--repeat 3]
 *                          [--rest URL] [--electrum HOST:PORT] [--dataset FILE]
 *
 * k6 is built once with `go install go.k6.io/k6@v0.54.0` into ~/.cache/electrum-bench/k6 when Go
 * is found (PATH or /usr/local/go/bin); without Go and without a built k6 the REST part says so and
 * is skipped. Defaults: the running lab's Esplora (REST and Electrum ports) and its dataset.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { labStatus } from '../src/lab/lab';
import { readDataset } from '../src/dataset/line';
import { restScriptHash } from '../src/esplora/rest-client';
import { readProcessTree } from '../src/resources/proc';
import { medianOfUnsorted } from '../src/core/quantiles';
import { parseServerAddress } from '../src/core/server-address';
import { flag } from './args';
// `load` and `bench` as users run them, with the launchers' node options.
import ENGINE from '../bin/engine-node-flags.json';

const args = process.argv.slice(2);
const PART = args[0] && !args[0].startsWith('--') ? args[0] : 'all';
const RATE = Number(flag('rate', '400'));
const SECONDS = Number(flag('seconds', '30'));
const REPEAT = Number(flag('repeat', '3'));
const REPO = path.join(__dirname, '..');
const CACHE = path.join(os.homedir(), '.cache', 'electrum-bench');
const K6 = path.join(CACHE, 'k6', 'bin', 'k6');
const K6_VERSION = 'v0.54.0';

interface Figures {
  p50Ms: number;
  p99Ms: number;
  /** From the write, where the tool's headline figure is from the intended send. */
  serviceP99Ms?: number;
  answered: number;
  cpuPerRequestMs: number;
  cpuShare: number;
}

/**
 * Runs a command to its end, sampling its tree's CPU every 250 ms; returns its stdout and the CPU
 * share of one core over the middle half of its life.
 */
async function runSampled(command: string, argv: string[], cwd = REPO): Promise<{ stdout: string; stderr: string; cpuShare: number }> {
  const child = spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  const samples: Array<{ t: number; cpu: number }> = [];
  const started = performance.now();
  const sample = async () => {
    const t = performance.now() - started;
    const r = await readProcessTree(child.pid!);
    if (r) samples.push({ t, cpu: r.cpuUserS + r.cpuSystemS });
  };
  const timer = setInterval(() => void sample(), 250);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(timer);
  const stdout = Buffer.concat(out).toString('utf8');
  const stderr = Buffer.concat(err).toString('utf8');
  if (code !== 0) throw new Error(`${command} ${argv.join(' ')} exited ${code}:\n${stderr.slice(-2000)}`);
  const life = performance.now() - started;
  const inside = samples.filter((s) => s.t >= life / 4 && s.t <= (3 * life) / 4 && s.cpu > 0);
  if (inside.length < 2) throw new Error(`${command}: too short to sample (${(life / 1000).toFixed(1)} s)`);
  const first = inside[0];
  const last = inside[inside.length - 1];
  return { stdout, stderr, cpuShare: (last.cpu - first.cpu) / ((last.t - first.t) / 1000) };
}

function goBinary(): string | null {
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    if (spawnSync(candidate, ['version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return null;
}

/** k6 from the cache, built there first when Go is here; null (with why) when neither. */
function k6Binary(): { path: string } | { missing: string } {
  if (fs.existsSync(K6)) return { path: K6 };
  const go = goBinary();
  if (!go) return { missing: `no k6 at ${K6} and no Go to build it with (go install go.k6.io/k6@${K6_VERSION})` };
  console.error(`building k6 ${K6_VERSION} into ${path.dirname(K6)} (go install, once) …`);
  const built = spawnSync(go, ['install', `go.k6.io/k6@${K6_VERSION}`], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: path.dirname(K6), GOPATH: path.join(CACHE, 'go'), GOFLAGS: '-modcacherw' },
  });
  return built.status === 0 && fs.existsSync(K6) ? { path: K6 } : { missing: `go install go.k6.io/k6@${K6_VERSION} failed (exit ${built.status})` };
}

async function k6Rest(k6: string, baseUrl: string, hashes: string[], dir: string): Promise<Figures> {
  fs.writeFileSync(path.join(dir, 'hashes.json'), JSON.stringify(hashes));
  // The same request stream as `load --mix balance=1`: one GET per arrival, over the dataset's hashes.
  const script = `
import http from 'k6/http';
const hashes = JSON.parse(open('./hashes.json'));
export const options = {
  scenarios: { rest: { executor: 'constant-arrival-rate', rate: ${RATE}, timeUnit: '1s', duration: '${SECONDS}s', preAllocatedVUs: 20, maxVUs: 400 } },
  summaryTrendStats: ['p(50)', 'p(99)', 'max'],
};
export default function () {
  http.get('${baseUrl}/scripthash/' + hashes[Math.floor(Math.random() * hashes.length)]);
}
`;
  fs.writeFileSync(path.join(dir, 'rest.js'), script);
  const summary = path.join(dir, 'k6-summary.json');
  const run = await runSampled(k6, ['run', '--quiet', '--no-color', '--summary-export', summary, 'rest.js'], dir);
  const m = JSON.parse(fs.readFileSync(summary, 'utf8')).metrics as Record<string, Record<string, number>>;
  const answered = m.http_reqs.count - (m.http_req_failed?.passes ?? 0);
  return { p50Ms: m.http_req_duration['p(50)'], p99Ms: m.http_req_duration['p(99)'], answered, cpuShare: run.cpuShare, cpuPerRequestMs: (1000 * run.cpuShare) / RATE };
}

async function ours(server: string, datasetFile: string, dir: string, extra: string[] = []): Promise<Figures> {
  const db = path.join(dir, `load-${Date.now()}.sqlite`);
  const run = await runSampled(process.execPath, [
    ...ENGINE.flags, '--import', 'tsx', 'src/cli/load.ts', '--server', server, '--dataset', datasetFile,
    '--rate', String(RATE), '--duration', `${SECONDS}s`, '--mix', 'balance=1', '--db', db, '--json', ...extra,
  ]);
  const s = (JSON.parse(run.stdout) as { servers: Array<{ latencyMs: { p50: number; p99: number }; serviceMs: { p99: number }; answered: number }> }).servers[0];
  return { p50Ms: s.latencyMs.p50, p99Ms: s.latencyMs.p99, serviceP99Ms: s.serviceMs.p99, answered: s.answered, cpuShare: run.cpuShare, cpuPerRequestMs: (1000 * run.cpuShare) / RATE };
}

/** The raw loop: one socket, due requests written together every 1 ms tick, times from the write. */
const RAW_ELECTRUM = `
const net = require('node:net');
const [host, port, rate, seconds, hashesJson] = process.argv.slice(1);
const hashes = JSON.parse(hashesJson);
const total = Number(rate) * Number(seconds);
const sentAt = new Map();
const latencies = [];
let buffered = '', k = 0, answered = 0;
const socket = net.connect(Number(port), host, () => {
  socket.setNoDelay(true);
  const t0 = performance.now();
  const tick = () => {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * Number(rate)));
    let out = '';
    const now = performance.now();
    for (; k < due; k++) {
      out += JSON.stringify({ jsonrpc: '2.0', id: k, method: 'blockchain.scripthash.get_balance', params: [hashes[k % hashes.length]] }) + '\\n';
      sentAt.set(k, now);
    }
    if (out) socket.write(out);
    if (k < total) setTimeout(tick, 1);
  };
  tick();
});
socket.on('data', (d) => {
  buffered += d;
  let nl;
  while ((nl = buffered.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buffered.slice(0, nl)); buffered = buffered.slice(nl + 1);
    latencies.push(performance.now() - sentAt.get(m.id)); sentAt.delete(m.id);
    if (m.result) answered++;
    if (latencies.length === total) { socket.end(); latencies.sort((a, b) => a - b); const at = (q) => latencies[Math.max(1, Math.ceil(q * latencies.length)) - 1]; console.log(JSON.stringify({ p50: at(0.5), p99: at(0.99), answered })); }
  }
});
`;

async function rawElectrum(host: string, port: number, hashes: string[]): Promise<Figures> {
  const run = await runSampled(process.execPath, ['-e', RAW_ELECTRUM, host, String(port), String(RATE), String(SECONDS), JSON.stringify(hashes)]);
  const r = JSON.parse(run.stdout) as { p50: number; p99: number; answered: number };
  return { p50Ms: r.p50, p99Ms: r.p99, answered: r.answered, cpuShare: run.cpuShare, cpuPerRequestMs: (1000 * run.cpuShare) / RATE };
}

const median = (xs: number[]): number => medianOfUnsorted(xs)!;
const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
const line = (who: string, f: Figures): string =>
  `  ${who.padEnd(8)} p50 ${f.p50Ms.toFixed(3)} ms  p99 ${f.p99Ms.toFixed(3)} ms${f.serviceP99Ms !== undefined ? ` (from the write ${f.serviceP99Ms.toFixed(3)} ms)` : ''}  CPU ${(100 * f.cpuShare).toFixed(1)}% of a core, ${f.cpuPerRequestMs.toFixed(3)} ms/request  answered ${f.answered}`;

async function compare(name: string, peerName: string, peer: () => Promise<Figures>, mine: () => Promise<Figures>): Promise<void> {
  console.log(`\n${name}: ${RATE}/s for ${SECONDS} s, ${REPEAT} rounds (peer first, then ours)`);
  const rounds: Array<{ peer: Figures; ours: Figures }> = [];
  for (let r = 1; r <= REPEAT; r++) {
    const p = await peer();
    const o = await mine();
    rounds.push({ peer: p, ours: o });
    console.log(` round ${r}`);
    console.log(line(peerName, p));
    console.log(line('ours', o));
  }
  const ratios = (pick: (f: Figures) => number | undefined) => rounds.map((x) => (pick(x.ours) ?? NaN) / pick(x.peer)!);
  const show = (label: string, xs: number[]) => console.log(`  ${label.padEnd(34)} median ${median(xs).toFixed(2)}×  (rounds ${spread(xs)})`);
  console.log(` ours ÷ ${peerName}`);
  show('CPU per request', ratios((f) => f.cpuPerRequestMs));
  show('p50 (ours from the intended send)', ratios((f) => f.p50Ms));
  show('p99 (ours from the intended send)', ratios((f) => f.p99Ms));
  show('p99 (ours from the write)', rounds.map((x) => (x.ours.serviceP99Ms ?? NaN) / x.peer.p99Ms));
}

async function main(): Promise<void> {
  if (process.platform !== 'linux') throw new Error('bench/peers.ts reads CPU from /proc: Linux only');
  const lab = await labStatus();
  const datasetFile = flag('dataset', lab.datasetPath);
  const lines = readDataset(datasetFile).lines;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'electrum-bench-peers-'));
  try {
    if (PART === 'rest' || PART === 'all') {
      const rest = flag('rest', lab.electrum.esplora?.rest ?? '');
      const k6 = k6Binary();
      if (!rest) console.log('\nrest: skipped: no --rest URL and no lab Esplora running');
      else if ('missing' in k6) console.log(`\nrest: skipped: ${k6.missing}`);
      else {
        const hashes = lines.map((l) => restScriptHash(l.scripthash));
        await compare('Esplora REST, GET /scripthash/:hash', 'k6', () => k6Rest(k6.path, rest, hashes, dir), () => ours(`esplora-rest@${rest}`, datasetFile, dir));
      }
    }
    if (PART === 'electrum' || PART === 'all') {
      // Blockstream's electrs last: its replies wait on the client's next request (see above).
      const up = (['fulcrum', 'electrumx', 'electrs', 'esplora'] as const).map((n) => lab.electrum[n]).find((s) => s?.running);
      const electrum = flag('electrum', up ? `${up.host}:${up.port}` : '');
      if (!electrum) console.log('\nelectrum: skipped: no --electrum HOST:PORT and no lab server running');
      else {
        const { host, port } = parseServerAddress(electrum, `--electrum ${electrum}`);
        if (port === undefined) throw new Error(`--electrum ${electrum}: give HOST:PORT`);
        const hashes = lines.map((l) => l.scripthash);
        await compare(`Electrum ${electrum}, blockchain.scripthash.get_balance`, 'raw loop', () => rawElectrum(host, port, hashes), () => ours(`generic@${electrum}`, datasetFile, dir, ['--connections', '1']));
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
