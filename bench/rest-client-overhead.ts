/**
 * The Esplora REST client's own cost per call, against a bare keep-alive socket asking the same
 * server the same thing in the same run (issue #41, "the bench's own time out of the call"): CPU
 * per call, the latency it reports (p50/p99), and its loop-busy time in flight with the share of
 * calls the bench's self-check would flag (busy over 0.1 ms and over 10 % of the latency). Round by
 * round, so the JIT's warming shows: a bench's REST target makes a few hundred calls a pass.
 *
 * One call at a time on one connection, `get_balance` of the dataset's addresses in turn. The bare
 * loop writes the GET, reads the reply by its Content-Length and parses the JSON: the floor.
 * To compare two trees, run this script from each (it measures the client of the tree it is in).
 *
 *   npx tsx bench/rest-client-overhead.ts --server 127.0.0.1:PORT --dataset FILE [--calls 3000] [--rounds 4]
 */
import fs from 'node:fs';
import net from 'node:net';
import { EsploraRestClient, restScriptHash } from '../src/esplora/rest-client';
import { METHOD_RPC } from '../src/core/methods';
import { parseServerAddress } from '../src/core/server-address';
import { percentile } from '../src/core/quantiles';
import { flag } from './args';

const server = flag('server');
const datasetFile = flag('dataset');
if (!server || !datasetFile) {
  console.error('usage: npx tsx bench/rest-client-overhead.ts --server HOST:PORT --dataset FILE [--calls N] [--rounds N]');
  process.exit(2);
}
const { host, port: givenPort } = parseServerAddress(server, '--server');
if (givenPort === undefined) {
  console.error('--server needs a port');
  process.exit(2);
}
const port = givenPort;
const CALLS = Number(flag('calls', '3000'));
const ROUNDS = Number(flag('rounds', '4'));
const scripthashes: string[] = fs
  .readFileSync(datasetFile, 'utf8')
  .trim()
  .split('\n')
  .map((l) => (JSON.parse(l) as { scripthash: string }).scripthash);

const fmt = (v: number | null) => (v === null ? '-' : v.toFixed(3));
const sorted = (a: number[]) => Float64Array.from(a).sort();
const cpuMicros = (u: NodeJS.CpuUsage) => u.user + u.system;

async function ours(): Promise<string> {
  const c = new EsploraRestClient({ host, port, tls: false, timeoutMs: 10_000, maxSockets: 1, measureLoop: true });
  const latency: number[] = [];
  const busy: number[] = [];
  let flagged = 0;
  const u0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const o = await c.call(METHOD_RPC.balance, [scripthashes[i % scripthashes.length]]);
    const ms = Number(o.latencyNs) / 1e6;
    latency.push(ms);
    busy.push(o.loopBusyMs ?? 0);
    if ((o.loopBusyMs ?? 0) > 0.1 && (o.loopBusyMs ?? 0) > 0.1 * ms) flagged++;
  }
  const cpu = cpuMicros(process.cpuUsage(u0)) / CALLS;
  c.close();
  const l = sorted(latency);
  const b = sorted(busy);
  return `ours  CPU ${cpu.toFixed(1).padStart(6)} µs/call  latency p50 ${fmt(percentile(l, 0.5))} p99 ${fmt(percentile(l, 0.99))} ms  busy p50 ${fmt(percentile(b, 0.5))} p99 ${fmt(percentile(b, 0.99))} ms  flagged ${flagged} of ${CALLS}`;
}

async function bare(): Promise<string> {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(port, host, () => resolve(s));
    s.once('error', reject);
  });
  socket.setNoDelay(true);
  let buffered: Buffer = Buffer.alloc(0);
  let waiting: ((body: Buffer, arrivedNs: bigint) => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    const arrivedNs = process.hrtime.bigint();
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    const headEnd = buffered.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const length = Number(/content-length: *(\d+)/i.exec(buffered.toString('latin1', 0, headEnd))?.[1] ?? 0);
    if (buffered.length < headEnd + 4 + length) return;
    const body = buffered.subarray(headEnd + 4, headEnd + 4 + length);
    buffered = buffered.subarray(headEnd + 4 + length);
    const w = waiting!;
    waiting = null;
    w(body, arrivedNs);
  });
  const latency: number[] = [];
  const u0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const path = `/scripthash/${restScriptHash(scripthashes[i % scripthashes.length])}`;
    const sentNs = process.hrtime.bigint();
    const [body, arrivedNs] = await new Promise<[Buffer, bigint]>((resolve) => {
      waiting = (b, at) => resolve([b, at]);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    });
    latency.push(Number(arrivedNs - sentNs) / 1e6);
    JSON.parse(body.toString('utf8'));
  }
  const cpu = cpuMicros(process.cpuUsage(u0)) / CALLS;
  socket.destroy();
  const l = sorted(latency);
  return `bare  CPU ${cpu.toFixed(1).padStart(6)} µs/call  latency p50 ${fmt(percentile(l, 0.5))} p99 ${fmt(percentile(l, 0.99))} ms`;
}

async function main(): Promise<void> {
  console.log(`${CALLS} get_balance calls a round, one at a time, ${host}:${port}`);
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}  ${await ours()}`);
    console.log(`round ${round}  ${await bare()}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
