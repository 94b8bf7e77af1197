/**
 * Client overhead, measured in one run against the same local server:
 *  1. per-call latency of our ElectrumClient vs a raw net.Socket JSON-RPC loop, one call in flight,
 *     alternating blocks so machine drift hits both alike: ratio at p50 and p99 (target <= 1.05 at p50);
 *  2. the most calls/s one process sustains pipelined against a null responder, ours vs raw.
 * Usage: npx tsx bench/client-overhead.ts [--server HOST:PORT] [--calls N]
 *   --server points part 1 at a real Electrum server (e.g. the lab's ElectrumX, server.ping);
 *   by default both parts use a null responder started in a child process.
 */
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ElectrumClient } from '../src/electrum/client';
import { parseServerAddress } from '../src/core/server-address';
import { percentile } from '../src/core/quantiles';
import { flag } from './args';

const CALLS = Number(flag('calls') ?? 20000);
const BLOCK = 500;
const PIPELINE_DEPTH = 256;
const PIPELINE_SECONDS = 5;

/** A minimal newline JSON-RPC loop on a bare socket: the floor our client is compared with. */
class RawLoop {
  private buffered = '';
  private waiting = new Map<number, () => void>();
  private nextId = 1;
  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      this.buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const msg = JSON.parse(this.buffered.slice(0, nl)) as { id: number };
        this.buffered = this.buffered.slice(nl + 1);
        const done = this.waiting.get(msg.id);
        this.waiting.delete(msg.id);
        done?.();
      }
    });
  }
  static connect(host: string, port: number): Promise<RawLoop> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port }, () => resolve(new RawLoop(s)));
      s.once('error', reject);
    });
  }
  call(method: string, params: unknown[]): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }
  close() {
    this.socket.destroy();
  }
}

async function startNullResponder(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'null-responder.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  return { port, stop: () => child.kill() };
}

function fmt(ns: number | null) {
  return ns === null ? '-' : `${(ns / 1000).toFixed(1)} µs`;
}

async function latencyComparison(host: string, port: number, method: string, params: unknown[]) {
  const client = await ElectrumClient.connect({ host, port, keepaliveMs: 0, skipServerInfo: true });
  const raw = await RawLoop.connect(host, port);
  await raw.call('server.version', ['raw', '1.4']);
  const ours: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 1000; i++) {
    await client.call(method, params); // warm both paths up
    await raw.call(method, params);
  }
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (let i = 0; i < BLOCK; i++) {
      const t0 = process.hrtime.bigint();
      await client.call(method, params);
      ours.push(Number(process.hrtime.bigint() - t0));
    }
    for (let i = 0; i < BLOCK; i++) {
      const t0 = process.hrtime.bigint();
      await raw.call(method, params);
      bare.push(Number(process.hrtime.bigint() - t0));
    }
  }
  client.close();
  raw.close();
  ours.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  const p = (xs: number[], q: number) => percentile(xs, q)!;
  console.log(`1. per-call latency, ${method}, ${CALLS} calls each, one in flight (wall time around each await)`);
  console.log(`   raw net.Socket loop: p50 ${fmt(p(bare, 0.5))}  p99 ${fmt(p(bare, 0.99))}`);
  console.log(`   ElectrumClient:      p50 ${fmt(p(ours, 0.5))}  p99 ${fmt(p(ours, 0.99))}`);
  console.log(`   ratio ours/raw:      p50 ${(p(ours, 0.5) / p(bare, 0.5)).toFixed(3)}x  p99 ${(p(ours, 0.99) / p(bare, 0.99)).toFixed(3)}x  (target <= 1.05x at p50)`);
}

async function pipelined(port: number) {
  const measure = async (call: () => Promise<unknown>) => {
    let count = 0;
    const deadline = Date.now() + PIPELINE_SECONDS * 1000;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: PIPELINE_DEPTH }, async () => {
        while (Date.now() < deadline) {
          await call();
          count++;
        }
      }),
    );
    return count / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  const client = await ElectrumClient.connect({ host: '127.0.0.1', port, keepaliveMs: 0, skipServerInfo: true });
  const raw = await RawLoop.connect('127.0.0.1', port);
  const sh = ['0'.repeat(64)];
  const rawRate = await measure(() => raw.call('blockchain.scripthash.get_balance', sh));
  const ourRate = await measure(() => client.call('blockchain.scripthash.get_balance', sh));
  client.close();
  raw.close();
  console.log(`2. pipelined throughput against the null responder, ${PIPELINE_DEPTH} in flight, ${PIPELINE_SECONDS} s each`);
  console.log(`   raw net.Socket loop: ${Math.round(rawRate).toLocaleString('en')} calls/s`);
  console.log(`   ElectrumClient:      ${Math.round(ourRate).toLocaleString('en')} calls/s  (ratio ${(ourRate / rawRate).toFixed(3)}x)`);
}

async function main() {
  const nullResponder = await startNullResponder();
  try {
    const target = flag('server');
    if (target) {
      const { host, port } = parseServerAddress(target, '--server');
      await latencyComparison(host, port ?? 50001, 'server.ping', []);
    } else {
      await latencyComparison('127.0.0.1', nullResponder.port, 'blockchain.scripthash.get_balance', ['0'.repeat(64)]);
    }
    await pipelined(nullResponder.port);
  } finally {
    nullResponder.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
