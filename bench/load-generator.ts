/**
 * The load engine's own figures, each against a baseline measured in the same run, with the
 * server a null responder in another process (so its work never shares our event loop):
 *
 *   capacity  the highest constant arrival rate the engine sustains with scheduling lag p99 ≤ 1 ms,
 *             vs the replies/s of a bare socket pipelining loop against the same responder
 *   memory    RSS after N and after 10·N requests at a constant rate (flat memory: ratio ≈ 1)
 *   stall     a responder that stalls 1 s every 10 s: the open model's p99, measured from each
 *             request's intended send (corrected), beside the p99 a closed loop measures against
 *             the same responder (uncorrected: during a stall it simply stops sending)
 *   cost      the generator's own CPU and scheduling lag at a few constant rates (issue #19), vs a
 *             bare socket sending at the same rate from a plain timer (the cheapest sender, whose
 *             sends are up to 1 ms late): what the engine's precision costs beyond it. The engine's
 *             CPU over the whole run (as the run reports it) and over its steady part (a third of
 *             the way in to 0.5 s before the end: start-up's compiling left out), and how often its
 *             threads slept and were woken (wakes/s), the bare socket's too; and beside both a
 *             blocking Python loop sending the same (no event loop: what a wake alone costs here)
 *   table     issue #41's table: the bench's null responder (null-responder.ts) on CPU 0, the engine
 *             alone on CPU 1, one process per rate as a `load` run is (start-up included, and `load`'s
 *             node options: bin/engine-node-flags.json), get_balance only, 8 connections of 16 in
 *             flight (load's defaults; others with --connections and --in-flight): the generator's
 *             CPU, µs of it per answered request, lag p50/p99, answered, dropped, and the load
 *             average. With --against DIR, the same from another checkout of the project (e.g. the
 *             parent commit's tree, its node_modules linked), rate by rate in turn with this one, so
 *             both see the same moments.
 *             Beside each row, an independent reference: bench/reference-client (a constant-rate Go
 *             client, built once per run; skipped, in one line, without `go`), pinned to CPU 1 in
 *             turn with the engine's rows against the same responder: its µs of CPU per answered
 *             request, lag p99, answered, and engine ÷ reference in µs per answered request
 *
 *   npx tsx bench/load-generator.ts [capacity|memory|stall|cost|all] [--requests N] [--seconds S] [--from RATE] [--rates 50,400]
 *   npx tsx bench/load-generator.ts table [--rates 400,2000,5000,10000,20000] [--seconds 12] [--rounds 3] [--against DIR]
 *                                         [--connections 8] [--in-flight 16]
 *
 * --from starts capacity's search at RATE instead of 1000/s: on a shared machine every step is
 * another chance for another process's burst to end the search far below the limit.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { LoadOptions, LoadRunner } from '../src/engine/runner';
import type { DatasetLine } from '../src/core/dataset-line';
import ENGINE from '../bin/engine-node-flags.json';
import { flag } from './args';

/** A null responder (answers every call with null), optionally stalling, in a process of its own. */
async function responder(stall?: { everyMs: number; forMs: number }): Promise<{ port: number; child: ChildProcess }> {
  const code = `
    const net = require('node:net');
    const stall = ${JSON.stringify(stall ?? null)};
    const t0 = Date.now();
    const stalledFor = () => { if (!stall) return 0; const t = (Date.now() - t0) % stall.everyMs; return t >= stall.everyMs - stall.forMs ? stall.everyMs - t : 0; };
    const server = net.createServer((s) => {
      let buf = '';
      s.on('error', () => {});
      s.on('data', (d) => {
        buf += d;
        let nl, out = '';
        while ((nl = buf.indexOf('\\n')) >= 0) {
          const m = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1);
          const r = m.method === 'server.version' ? ['null', '1.4'] : null;
          out += '{"jsonrpc":"2.0","id":' + m.id + ',"result":' + JSON.stringify(r) + '}\\n';
        }
        const wait = stalledFor();
        if (wait > 0) setTimeout(() => s.write(out), wait); else s.write(out);
      });
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
  return { port, child };
}

const lines: DatasetLine[] = Array.from({ length: 100 }, (_, i) => ({
  address: null,
  scripthash: createHash('sha256').update(`b${i}`).digest('hex'),
  type: 'nonstandard',
  txCount: 1,
  utxoCount: 1,
  balance: { confirmed: 1, unconfirmed: 0 },
}));

function options(port: number, rate: number, durationMs: number, extra: Partial<LoadOptions> = {}): LoadOptions {
  return {
    servers: [{ name: 'null', profile: 'generic', host: '127.0.0.1', port, tls: false }],
    lines,
    mix: { balance: 1, history: 1, utxos: 1 },
    model: { kind: 'rate', rate },
    durationMs,
    connections: 16,
    pipeline: 256,
    timeoutMs: 10_000,
    maxLineBytes: 1 << 20,
    tlsInsecure: false,
    seed: 'bench',
    sourceAddresses: [],
    samples: false,
    ...extra,
  };
}

/**
 * Times any thread of this process went to sleep and was woken (voluntary context switches, from
 * /proc): what a sleeping generator pays per wait, in kernel time and a cold cache. Null off Linux.
 */
function wakes(): number | null {
  try {
    return fs.readdirSync('/proc/self/task').reduce((n, t) => n + Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/self/task/${t}/status`, 'utf8'))![1]), 0);
  } catch {
    return null;
  }
}

const perSecond = (w0: number | null, w1: number | null, ms: number) => (w0 === null || w1 === null ? 'n/a' : ((1000 * (w1 - w0)) / ms).toFixed(0));

async function engineAt(port: number, rate: number, seconds: number) {
  const opts = options(port, rate, seconds * 1000);
  // Besides the whole run's CPU (what the run reports), the steady part's: from a third of the
  // way in to 0.5 s before the end, after start-up's compiling and the first collections.
  const snap = () => ({ at: performance.now(), cpu: process.cpuUsage(), wakes: wakes() });
  let from: ReturnType<typeof snap> | undefined;
  let to: ReturnType<typeof snap> | undefined;
  const marks = [setTimeout(() => (from = snap()), (seconds * 1000) / 3), setTimeout(() => (to = snap()), seconds * 1000 - 500)];
  const r = await new LoadRunner(opts).runServer(opts.servers[0], 0);
  marks.forEach(clearTimeout);
  const steadyMs = from && to ? to.at - from.at : NaN;
  const steadyCpu = from && to ? (to.cpu.user + to.cpu.system - from.cpu.user - from.cpu.system) / 1000 / steadyMs : NaN;
  const wakesPerS = from && to ? perSecond(from.wakes, to.wakes, steadyMs) : 'n/a';
  const ok = r.totals.byOutcome.get('ok') ?? 0;
  const lagP50Ms = r.totals.lag.totalCount > 0 ? r.totals.lag.getValueAtPercentile(50) / 1000 : 0;
  return { rate, achieved: ok / (r.durationMs / 1000), lagP50Ms, lagP99Ms: (r.generator.lagP99Us ?? 0) / 1000, dropped: r.totals.dropped, cpu: r.generator.cpuUtilisation, steadyCpu, wakesPerS };
}

/** A bare socket keeping `depth` requests in flight, as fast as replies come: the ceiling. */
async function rawPipelined(port: number, seconds: number, depth = 256): Promise<number> {
  const s = net.connect(port, '127.0.0.1');
  await new Promise((r) => s.once('connect', r));
  let id = 0;
  let replies = 0;
  let buf = '';
  const sendOne = () => s.write(`{"jsonrpc":"2.0","id":${++id},"method":"blockchain.scripthash.get_balance","params":["${lines[id % lines.length].scripthash}"]}\n`);
  const until = Date.now() + seconds * 1000;
  await new Promise<void>((resolve) => {
    s.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        buf = buf.slice(nl + 1);
        replies++;
        if (Date.now() < until) sendOne();
        else if (replies >= id) resolve();
      }
    });
    for (let i = 0; i < depth; i++) sendOne();
  });
  s.destroy();
  return replies / seconds;
}

/** A bare socket sending one request per `1/rate` s from a plain timer: its CPU share of a core, and its wakes per second. */
async function rawAtRate(port: number, rate: number, seconds: number): Promise<{ cpu: number; wakesPerS: string }> {
  const s = net.connect(port, '127.0.0.1');
  await new Promise((r) => s.once('connect', r));
  s.on('data', () => undefined);
  let id = 0;
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  const w0 = wakes();
  await new Promise<void>((resolve) => {
    const send = () => {
      while (t0 + (id * 1000) / rate <= Date.now() && id < rate * seconds) {
        s.write(`{"jsonrpc":"2.0","id":${++id},"method":"blockchain.scripthash.get_balance","params":["${lines[id % lines.length].scripthash}"]}\n`);
      }
      if (id >= rate * seconds) return resolve();
      setTimeout(send, Math.max(0, t0 + (id * 1000) / rate - Date.now()));
    };
    send();
  });
  const cpu = process.cpuUsage(cpu0);
  const wakesPerS = perSecond(w0, wakes(), Date.now() - t0);
  s.destroy();
  return { cpu: (cpu.user + cpu.system) / 1000 / (Date.now() - t0), wakesPerS };
}

/**
 * The same requests at the same rate from a blocking Python loop (sleep to the send time, send,
 * read the answer): no event loop at all, so what this machine charges a sender for its wakes
 * alone. Its CPU share over the sending (interpreter start-up left out) and how late its sends were.
 * Otherwise why not (no python3, or how it failed).
 */
async function pythonAtRate(port: number, rate: number, seconds: number): Promise<{ cpu: number; lagP99Ms: number } | string> {
  const code = `
import json, resource, socket, sys, time
port, rate, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(('127.0.0.1', port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
n = int(rate * seconds)
late = []
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.monotonic()
for i in range(n):
    due = t0 + i / rate
    wait = due - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    late.append(time.monotonic() - due)
    s.sendall(('{"jsonrpc":"2.0","id":%d,"method":"blockchain.scripthash.get_balance","params":["%s"]}\\n' % (i + 1, '%064x' % i)).encode())
    answer = b''
    while not answer.endswith(b'\\n'):
        chunk = s.recv(65536)
        if not chunk:
            sys.exit('the responder closed the connection')
        answer += chunk
r1 = resource.getrusage(resource.RUSAGE_SELF)
wall = time.monotonic() - t0
late.sort()
print(json.dumps({'cpu': (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) / wall, 'lagP99Ms': late[int(0.99 * (n - 1))] * 1000}))
`;
  return new Promise((resolve) => {
    const child = spawn('python3', ['-c', code, String(port), String(rate), String(seconds)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    // A sender that overruns its schedule by far is stopped rather than waited for.
    const limit = setTimeout(() => child.kill('SIGKILL'), (seconds * 3 + 10) * 1000);
    child.on('exit', () => clearTimeout(limit));
    child.on('error', (e) => resolve(`no python3 (${e.message})`));
    child.on('close', (exitCode) => resolve(exitCode === 0 ? JSON.parse(out) : `python3 exited ${exitCode}: ${err.trim().split('\n').pop()}`));
  });
}

async function cost(seconds: number, rates: number[]) {
  const { port, child } = await responder();
  try {
    for (const rate of rates) {
      const raw = await rawAtRate(port, rate, seconds);
      const py = await pythonAtRate(port, rate, seconds);
      const r = await engineAt(port, rate, seconds);
      console.log(
        `cost at ${rate}/s: engine CPU ${(r.cpu * 100).toFixed(1)}% of a core (steady ${(r.steadyCpu * 100).toFixed(1)}%, ${r.wakesPerS} wakes/s), lag p50 ${r.lagP50Ms.toFixed(3)} / p99 ${r.lagP99Ms.toFixed(3)} ms; ` +
          `bare timer-driven socket ${(raw.cpu * 100).toFixed(1)}%, ${raw.wakesPerS} wakes/s; ratio ${(r.cpu / Math.max(raw.cpu, 1e-4)).toFixed(2)}x (steady ${(r.steadyCpu / Math.max(raw.cpu, 1e-4)).toFixed(2)}x)`,
      );
      console.log(
        typeof py === 'object'
          ? `  blocking Python sender ${(py.cpu * 100).toFixed(1)}% (lag p99 ${py.lagP99Ms.toFixed(3)} ms); engine ÷ it ${(r.cpu / Math.max(py.cpu, 1e-4)).toFixed(2)}x (steady ${(r.steadyCpu / Math.max(py.cpu, 1e-4)).toFixed(2)}x), bare Node socket ÷ it ${(raw.cpu / Math.max(py.cpu, 1e-4)).toFixed(2)}x`
          : `  blocking Python sender: skipped, ${py}`,
      );
    }
  } finally {
    child.kill('SIGKILL');
  }
}

async function capacity(seconds: number, from: number) {
  const { port, child } = await responder();
  try {
    const raw = await rawPipelined(port, seconds);
    console.log(`raw socket pipelining (256 in flight): ${raw.toFixed(0)} replies/s`);
    // The first run in a process compiles the engine's code as it goes: its lag is start-up's, not
    // the rate's, and ended searches at their first step. It is run once first and not counted.
    const warm = await engineAt(port, from, 1);
    console.log(`  warm-up at ${from}/s for 1 s (not counted): lag p99 ${warm.lagP99Ms.toFixed(2)} ms`);
    // Geometric steps up to the first rate not sustained, then bisection between the last rate
    // sustained and that one (to within 3 %): the same criterion at every step. On a shared
    // machine another process's burst can fail a step far below the limit, so a step not
    // sustained is measured once more before the search takes it as the limit.
    const once = async (rate: number) => {
      const r = await engineAt(port, rate, seconds);
      const ok = r.lagP99Ms <= 1 && r.achieved >= 0.95 * rate && r.dropped === 0;
      console.log(`  engine at ${rate}/s: achieved ${r.achieved.toFixed(0)}/s, lag p99 ${r.lagP99Ms.toFixed(2)} ms, dropped ${r.dropped}, CPU ${(r.cpu * 100).toFixed(0)}% → ${ok ? 'sustained' : 'not sustained'}`);
      return ok;
    };
    const sustains = async (rate: number) => (await once(rate)) || (await once(rate));
    let sustained = 0;
    let failed = Infinity;
    for (let rate = from; rate <= raw * 1.5; rate = Math.round(rate * 1.5)) {
      if (!(await sustains(rate))) {
        failed = rate;
        break;
      }
      sustained = rate;
    }
    while (sustained > 0 && failed !== Infinity && failed / sustained > 1.03) {
      const mid = Math.round(Math.sqrt(sustained * failed));
      if (await sustains(mid)) sustained = mid;
      else failed = mid;
    }
    console.log(`capacity: ${sustained}/s sustained with lag p99 <= 1 ms = ${(sustained / raw).toFixed(2)}x the raw loop (target >= 0.85x)`);
  } finally {
    child.kill('SIGKILL');
  }
}

async function memory(requests: number) {
  const { port, child } = await responder();
  try {
    const rate = 20_000;
    const rssAfter = async (n: number) => {
      const opts = options(port, rate, Math.ceil((n / rate) * 1000));
      await new LoadRunner(opts).runServer(opts.servers[0], 0);
      if (global.gc) global.gc();
      return process.memoryUsage().rss / 1e6;
    };
    const a = await rssAfter(requests);
    const b = await rssAfter(requests * 10);
    console.log(`memory: RSS ${a.toFixed(0)} MB after ${requests.toLocaleString('en')} requests, ${b.toFixed(0)} MB after ${(requests * 10).toLocaleString('en')}: ratio ${(b / a).toFixed(2)} (target <= 1.2)`);
  } finally {
    child.kill('SIGKILL');
  }
}

async function stall(seconds: number) {
  const { port, child } = await responder({ everyMs: 10_000, forMs: 1000 });
  try {
    const open = options(port, 500, seconds * 1000, { connections: 4, pipeline: 1024 });
    const o = await new LoadRunner(open).runServer(open.servers[0], 0);
    const closed = options(port, 0, seconds * 1000, { model: { kind: 'vus', vus: 4, thinkTimeMs: 0 }, connections: 4 });
    const c = await new LoadRunner(closed).runServer(closed.servers[0], 0);
    const p = (h: typeof o.totals.latency, q: number) => (h.getValueAtPercentile(q) / 1000).toFixed(q === 50 ? 2 : 1);
    console.log(`stall (1 s every 10 s, ${seconds} s): open model at 500/s, from the intended send: p50 ${p(o.totals.latency, 50)} ms, p99 ${p(o.totals.latency, 99)} ms (${o.totals.sent} requests)`);
    console.log(`  closed loop, 4 clients, same responder: p50 ${p(c.totals.latency, 50)} ms, p99 ${p(c.totals.latency, 99)} ms (${c.totals.sent} requests): the stalls all but vanish`);
  } finally {
    child.kill('SIGKILL');
  }
}

/** One table row: `tree`'s engine at `rate` against the responder at `port`, in this process (pinned by the caller). */
async function tableRow(tree: string, port: number, rate: number, seconds: number, shape: TableShape) {
  // Another checkout's engine, so a tree and its parent run the same measurement.
  const { LoadRunner: Runner } = (await import(path.resolve(tree, 'src/engine/runner.ts'))) as { LoadRunner: typeof LoadRunner };
  // Addresses that never received anything: the responder's zero balance is their right answer.
  const empty = lines.map((l) => ({ ...l, txCount: 0, utxoCount: 0, balance: { confirmed: 0, unconfirmed: 0 } }));
  const opts = options(port, rate, seconds * 1000, { lines: empty, mix: { balance: 1 }, connections: shape.connections, pipeline: shape.inFlight });
  const w0 = wakes();
  const t0 = performance.now();
  const runner = new Runner(opts);
  // Drops in the first second apart: a fresh process compiles its hot paths then.
  let droppedFirstSecond = 0;
  runner.once('interval', (e: { record: { dropped: number } }) => (droppedFirstSecond = e.record.dropped));
  const r = await runner.runServer(opts.servers[0], 0);
  const wakesPerS = perSecond(w0, wakes(), performance.now() - t0);
  const answered = r.totals.byOutcome.get('ok') ?? 0;
  return {
    cpu: r.generator.cpuUtilisation,
    // As issue #41 counts it: the run's share of a core over its answered rate.
    usPerAnswered: answered > 0 ? (r.generator.cpuUtilisation * 1e6) / (answered / seconds) : NaN,
    lagP50Ms: r.totals.lag.totalCount > 0 ? r.totals.lag.getValueAtPercentile(50) / 1000 : 0,
    lagP99Ms: (r.generator.lagP99Us ?? 0) / 1000,
    answered,
    scheduled: Math.round(rate * seconds),
    dropped: r.totals.dropped,
    droppedFirstSecond,
    // Requests the generator check counts as delayed by us (lag over 10 % of their latency and 0.1 ms).
    atRiskShare: r.totals.generator.units > 0 ? r.totals.generator.atRisk / r.totals.generator.units : 0,
    wakesPerS,
  };
}

/** A child process of this script on CPU `cpu` (taskset), with `load`'s node options, running `args`; its last stdout line as JSON. */
function pinnedChild(cpu: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['--cpu-list', String(cpu), process.execPath, ...ENGINE.flags, '--import', 'tsx', __filename, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n').pop()!) : reject(new Error(`table child exited ${code}`))));
  });
}

/**
 * The reference client (bench/reference-client, Go) built into `dir`: its path, or why not (no Go,
 * or the build's last line). Built with the local toolchain and no module proxy: it needs only Go's
 * standard library, so the build never reaches the network.
 */
function buildReference(dir: string): { bin: string } | { skipped: string } {
  const bin = path.join(dir, 'reference-client');
  const build = spawnSync('go', ['build', '-o', bin, '.'], {
    cwd: path.join(__dirname, 'reference-client'),
    env: { ...process.env, GOTOOLCHAIN: 'local', GOPROXY: 'off', GOFLAGS: '' },
    encoding: 'utf8',
  });
  if (build.error) return { skipped: `no \`go\` on PATH (${build.error.message})` };
  if (build.status !== 0) return { skipped: `go build failed: ${(build.stderr || build.stdout).trim().split('\n').pop()}` };
  return { bin };
}

/** One reference row: the Go client at `rate` on CPU 1 against the responder at `port`, the figures as tableRow counts them. */
function referenceRow(bin: string, scripthashFile: string, port: number, rate: number, seconds: number, shape: TableShape) {
  const args = ['--cpu-list', '1', bin, '-host', '127.0.0.1', '-port', String(port), '-rate', String(rate), '-seconds', String(seconds), '-connections', String(shape.connections), '-inflight', String(shape.inFlight), '-scripthash-file', scripthashFile];
  return new Promise<{ cpu: number; usPerAnswered: number; lagP99Ms: number; answered: number }>((resolve, reject) => {
    const child = spawn('taskset', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`reference client exited ${code}: ${err.trim().split('\n').pop()}`));
      const r = JSON.parse(out.trim().split('\n').pop()!) as { answered: number; lagP99Us: number; cpuUserMs: number; cpuSysMs: number; wallMs: number };
      const cpu = (r.cpuUserMs + r.cpuSysMs) / r.wallMs;
      resolve({ cpu, usPerAnswered: r.answered > 0 ? (cpu * 1e6) / (r.answered / seconds) : NaN, lagP99Ms: r.lagP99Us / 1000, answered: r.answered });
    });
  });
}

/** Connections and requests in flight on each: issue #41's table used 8 x 16, load's defaults. */
interface TableShape {
  connections: number;
  inFlight: number;
}

async function table(seconds: number, rates: number[], rounds: number, against: string | undefined, shape: TableShape) {
  const here = path.resolve(__dirname, '..');
  const trees = against ? [here, path.resolve(against)] : [here];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'load-table-'));
  const reference = buildReference(scratch);
  const referenceBin = 'bin' in reference ? reference.bin : undefined;
  const scripthashFile = path.join(scratch, 'scripthashes.txt');
  fs.writeFileSync(scripthashFile, lines.map((l) => `${l.scripthash}\n`).join(''));
  const responderFile = path.join(__dirname, 'null-responder.ts');
  const child = spawn('taskset', ['--cpu-list', '0', process.execPath, '--import', 'tsx', responderFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  try {
    console.log(`null responder on CPU 0 (port ${port}), the engine alone on CPU 1, ${seconds} s per rate, get_balance only, ${shape.connections} connections x ${shape.inFlight}`);
    if ('skipped' in reference) console.log(`reference client (bench/reference-client): skipped, ${reference.skipped}`);
    else console.log('reference: the Go client of bench/reference-client on CPU 1 in turn with the engine, same responder, connections and in-flight cap');
    const refHeader = referenceBin ? ' | ref µs CPU per answered | ref lag p99 ms | ref answered | engine ÷ ref µs' : '';
    console.log(`round | tree | rate | generator CPU | µs CPU per answered | lag p50 / p99 ms | answered / scheduled | dropped (in 1st s) | at risk | wakes/s | load avg${refHeader}`);
    for (let round = 1; round <= rounds; round++) {
      for (const rate of rates) {
        // Every other round the order is reversed: none always inherits another's moment.
        const turns: Array<string | null> = [...trees, ...(referenceBin ? [null] : [])];
        const rows: Array<{ tree: string; load: string; r: Awaited<ReturnType<typeof tableRow>> }> = [];
        let ref: Awaited<ReturnType<typeof referenceRow>> | string | undefined;
        for (const tree of round % 2 === 1 ? turns : turns.reverse()) {
          if (tree === null) {
            ref = await referenceRow(referenceBin!, scripthashFile, port, rate, seconds, shape).catch((e: Error) => e.message);
            continue;
          }
          const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
          const shapeArgs = ['--connections', String(shape.connections), '--in-flight', String(shape.inFlight)];
          rows.push({ tree, load, r: JSON.parse(await pinnedChild(1, ['table-row', '--tree', tree, '--port', String(port), '--rate', String(rate), '--seconds', String(seconds), ...shapeArgs])) });
        }
        if (typeof ref === 'string') console.log(`reference client at ${rate}/s failed: ${ref}`);
        for (const { tree, load, r } of rows) {
          const name = tree === here ? 'this tree' : path.basename(tree);
          const beside = typeof ref === 'object' ? ` | ${ref.usPerAnswered.toFixed(1)} | ${ref.lagP99Ms.toFixed(3)} | ${ref.answered} | ${(r.usPerAnswered / ref.usPerAnswered).toFixed(2)}x` : refHeader ? ' | n/a | n/a | n/a | n/a' : '';
          console.log(`${round} | ${name} | ${rate}/s | ${pct(r.cpu)} | ${r.usPerAnswered.toFixed(1)} | ${r.lagP50Ms.toFixed(3)} / ${r.lagP99Ms.toFixed(3)} | ${r.answered} / ${r.scheduled} | ${r.dropped} (${r.droppedFirstSecond}) | ${pct(r.atRiskShare)} | ${r.wakesPerS} | ${load}${beside}`);
        }
      }
    }
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function tableShape(): TableShape {
  const shape = { connections: Number(flag('connections', '8')), inFlight: Number(flag('in-flight', '16')) };
  for (const [name, n] of [['--connections', shape.connections], ['--in-flight', shape.inFlight]] as const) {
    if (!Number.isInteger(n) || n < 1) {
      console.error(`${name} must be a whole number of at least 1, got ${flag(name.slice(2), '')}`);
      process.exit(2);
    }
  }
  return shape;
}

async function main() {
  const what = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'all';
  const seconds = Number(flag('seconds', '5'));
  if (what === 'table-row') {
    const row = await tableRow(flag('tree', '.'), Number(flag('port', '0')), Number(flag('rate', '400')), seconds, tableShape());
    console.log(JSON.stringify(row));
    return;
  }
  if (what === 'table') {
    if (spawnSync('taskset', ['--version']).error) throw new Error('table needs taskset (util-linux)');
    await table(Number(flag('seconds', '12')), flag('rates', '400,2000,5000,10000,20000').split(',').map(Number), Number(flag('rounds', '3')), flag('against'), tableShape());
    return;
  }
  if (what === 'capacity' || what === 'all') await capacity(seconds, Number(flag('from', '1000')));
  if (what === 'stall' || what === 'all') await stall(Math.max(20, seconds));
  if (what === 'memory' || what === 'all') await memory(Number(flag('requests', '100000')));
  if (what === 'cost' || what === 'all') await cost(seconds, flag('rates', '50,200,400,2000').split(',').map(Number));
}

main().then(() => process.exit(0));
