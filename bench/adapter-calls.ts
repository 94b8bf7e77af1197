/**
 * The lab adapter's time per request by call, and its CPU, against the running lab's btcd (issue
 * #40): for each call the servers make of it (getblockhash, getblock 0, getblockheader false,
 * getrawtransaction 0, and Core's REST blockpart, block, headers and blockhashbyheight), N requests
 * one after another on one keep-alive connection, each answer checked byte-equal to btcd's own,
 * with latency p50/p99 as the client sees it over loopback and the adapter's CPU per request
 * (/proc/PID/stat utime+stime, before and after). The client is a bare socket that writes a
 * request and reads back Content-Length bytes, so its own cost stays out of the figures.
 *
 * Each tree's adapter is started fresh on a spare port beside the lab's own (same btcd, same
 * cookie); with --against DIR another checkout of the project (e.g. the parent commit's tree, its
 * node_modules linked) is measured in turn with this one, round by round, so both see the same
 * moments of a shared machine.
 *
 *   ELECTRUM_BENCH_LAB_DIR=... npx tsx bench/adapter-calls.ts [--requests 2000] [--rounds 3] [--against DIR]
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { flag } from './args';
import { labConfig, labPaths } from '../src/lab/config';
import { NodeRpc } from '../src/node/rpc';
import { transactionSpans } from '../src/lab/adapter/chain-store';

interface Reply {
  status: number;
  body: Buffer;
}

/** One keep-alive HTTP/1.1 connection, one request at a time, replies read by Content-Length. */
class BareHttp {
  private buf: Buffer = Buffer.alloc(0);
  private waiting: ((r: Reply) => void) | null = null;

  private constructor(private readonly sock: net.Socket) {
    sock.setNoDelay(true);
    sock.on('data', (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0 || !this.waiting) return;
      const head = this.buf.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.buf.length < end + 4 + length) return;
      const reply = { status: Number(head.split(' ')[1]), body: Buffer.from(this.buf.subarray(end + 4, end + 4 + length)) };
      this.buf = this.buf.subarray(end + 4 + length);
      const w = this.waiting;
      this.waiting = null;
      w(reply);
    });
  }

  static connect(port: number): Promise<BareHttp> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new BareHttp(s)));
      s.once('error', reject);
    });
  }

  send(request: Buffer): Promise<Reply> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.sock.write(request);
    });
  }

  close(): void {
    this.sock.destroy();
  }
}

/** A call under test: the request bytes for sample i and the exact answer btcd gives for it. */
interface Call {
  name: string;
  request(i: number): Buffer;
  answer(reply: Reply, i: number): Buffer | string;
  expected(i: number): Buffer | string;
}

interface Chain {
  hashes: string[];
  blocks: Buffer[];
  txs: Array<{ txid: string; block: number; start: number; end: number }>;
}

async function readChain(btcd: NodeRpc): Promise<Chain> {
  const tip = await btcd.call<number>('getblockcount');
  const hashes: string[] = [];
  const blocks: Buffer[] = [];
  for (let h = 0; h <= tip; h += 100) {
    const heights = Array.from({ length: Math.min(100, tip - h + 1) }, (_, i) => h + i);
    const hs = await btcd.batch<string>(heights.map((x) => ({ method: 'getblockhash', params: [x] })));
    const raws = await btcd.batch<string>(hs.map((x) => ({ method: 'getblock', params: [x, 0] })));
    hashes.push(...hs);
    blocks.push(...raws.map((r) => Buffer.from(r, 'hex')));
  }
  const txs = blocks.flatMap((raw, block) => transactionSpans(raw).map((s) => ({ txid: s.txid, block, start: s.start, end: s.end })));
  return { hashes, blocks, txs };
}

function calls(chain: Chain, auth: string): Call[] {
  const n = chain.hashes.length;
  const at = (i: number) => (i * 7919) % n; // a spread of heights, the same for every tree
  const tx = (i: number) => chain.txs[(i * 104729) % chain.txs.length];
  const rpc = (method: string, params: (i: number) => unknown[]) => (i: number) => {
    const body = JSON.stringify({ jsonrpc: '1.0', id: i, method, params: params(i) });
    return Buffer.from(`POST / HTTP/1.1\r\nHost: adapter\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  const get = (target: (i: number) => string) => (i: number) => Buffer.from(`GET ${target(i)} HTTP/1.1\r\nHost: adapter\r\n\r\n`);
  const result = (r: Reply) => (JSON.parse(r.body.toString()) as { result: string }).result;
  const body = (r: Reply) => r.body;
  const headerRun = (h: number) => Buffer.concat(chain.blocks.slice(h, h + 5).map((b) => b.subarray(0, 80)));
  return [
    { name: 'getblockhash', request: rpc('getblockhash', (i) => [at(i)]), answer: result, expected: (i) => chain.hashes[at(i)] },
    { name: 'getblock 0', request: rpc('getblock', (i) => [chain.hashes[at(i)], 0]), answer: result, expected: (i) => chain.blocks[at(i)].toString('hex') },
    { name: 'getblockheader false', request: rpc('getblockheader', (i) => [chain.hashes[at(i)], false]), answer: result, expected: (i) => chain.blocks[at(i)].subarray(0, 80).toString('hex') },
    {
      name: 'getrawtransaction 0',
      request: rpc('getrawtransaction', (i) => [tx(i).txid, 0]),
      answer: result,
      expected: (i) => chain.blocks[tx(i).block].subarray(tx(i).start, tx(i).end).toString('hex'),
    },
    {
      name: 'REST blockpart',
      request: get((i) => `/rest/blockpart/${chain.hashes[tx(i).block]}.bin?offset=${tx(i).start}&size=${tx(i).end - tx(i).start}`),
      answer: body,
      expected: (i) => chain.blocks[tx(i).block].subarray(tx(i).start, tx(i).end),
    },
    { name: 'REST block', request: get((i) => `/rest/block/${chain.hashes[at(i)]}.bin`), answer: body, expected: (i) => chain.blocks[at(i)] },
    { name: 'REST headers 5', request: get((i) => `/rest/headers/${chain.hashes[at(i)]}.bin?count=5`), answer: body, expected: (i) => headerRun(at(i)) },
    { name: 'REST blockhashbyheight', request: get((i) => `/rest/blockhashbyheight/${at(i)}.hex`), answer: (r) => r.body.toString(), expected: (i) => `${chain.hashes[at(i)]}\n` },
  ];
}

function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}

/** Waits until the process uses under 2 % of a core over a second (at most 60 s). */
async function quiet(pid: number): Promise<void> {
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    const before = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 1_000));
    if (cpuSeconds(pid) - before < 0.02) return;
  }
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function startAdapter(tree: string, port: number): Promise<ChildProcess> {
  const cfg = labConfig();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(tree, 'src/lab/adapter/main.ts'), '--port', String(port), '--btcd-port', String(cfg.ports.btcdRpc), '--cookie', labPaths(cfg).cookieFile],
    { cwd: tree, stdio: 'ignore' },
  );
  const rpc = new NodeRpc({ url: `http://127.0.0.1:${port}`, cookieFile: labPaths(cfg).cookieFile, timeoutMs: 2_000 });
  try {
    for (const end = Date.now() + 60_000; ; ) {
      try {
        await rpc.call('getblockcount');
        return child;
      } catch (err) {
        if (Date.now() > end) throw new Error(`the adapter of ${tree} did not answer within 60 s: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    rpc.close();
  }
}

interface Row {
  tree: string;
  call: string;
  p50: number;
  p99: number;
  cpuUs: number;
  equal: number;
  n: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(tree: string, label: string, chain: Chain, auth: string, requests: number): Promise<Row[]> {
  const port = await freePort();
  const child = await startAdapter(tree, port);
  const client = await BareHttp.connect(port);
  const rows: Row[] = [];
  try {
    const all = calls(chain, auth);
    // Warm-up: the block cache fills (a tree without a store), then the adapter goes quiet (a
    // store has caught up with the chain), so no start-up work is counted against a call.
    for (const c of all) for (let i = 0; i < 200; i++) await client.send(c.request(i));
    await quiet(child.pid!);
    for (const c of all) {
      const lat: number[] = [];
      let equal = 0;
      const cpu0 = cpuSeconds(child.pid!);
      for (let i = 0; i < requests; i++) {
        const req = c.request(i);
        const t0 = process.hrtime.bigint();
        const reply = await client.send(req);
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
        const got = c.answer(reply, i);
        const want = c.expected(i);
        if (reply.status === 200 && (typeof want === 'string' ? got === want : Buffer.isBuffer(got) && want.equals(got))) equal++;
      }
      const cpu = cpuSeconds(child.pid!) - cpu0;
      lat.sort((a, b) => a - b);
      rows.push({ tree: label, call: c.name, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99), cpuUs: (cpu / requests) * 1e6, equal, n: requests });
    }
  } finally {
    client.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  return rows;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x: number, d: number) => x.toFixed(d);

async function main(): Promise<void> {
  const requests = Number(flag('requests', '2000'));
  const rounds = Number(flag('rounds', '3'));
  const against = flag('against');
  const trees: Array<[string, string]> = [[path.resolve(__dirname, '..'), 'this']];
  if (against) {
    if (!fs.existsSync(path.join(against, 'src/lab/adapter/main.ts'))) throw new Error(`--against ${against}: no src/lab/adapter/main.ts there`);
    trees.push([path.resolve(against), 'against']);
  }
  const cfg = labConfig();
  const cookie = fs.readFileSync(labPaths(cfg).cookieFile, 'utf8').trim();
  const auth = 'Basic ' + Buffer.from(cookie).toString('base64');
  const btcd = new NodeRpc({ url: `http://127.0.0.1:${cfg.ports.btcdRpc}`, cookieFile: labPaths(cfg).cookieFile });
  const chain = await readChain(btcd);
  btcd.close();
  process.stdout.write(`lab chain: ${chain.hashes.length} blocks, ${chain.txs.length} transactions; ${requests} requests per call, ${rounds} rounds\n`);
  const all: Row[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (const [tree, label] of trees) {
      const rows = await measure(tree, label, chain, auth, requests);
      all.push(...rows);
      for (const x of rows) {
        process.stdout.write(`round ${r}  ${x.tree.padEnd(8)} ${x.call.padEnd(24)} p50 ${fmt(x.p50, 3)} ms  p99 ${fmt(x.p99, 3)} ms  CPU ${fmt(x.cpuUs, 1).padStart(6)} µs/req  byte-equal ${x.equal}/${x.n}\n`);
      }
    }
  }
  process.stdout.write(`\nmedian over ${rounds} rounds [min–max]\ntree     call                     p50 ms                 p99 ms                 CPU µs/req             byte-equal\n`);
  for (const [, label] of trees) {
    for (const name of [...new Set(all.map((x) => x.call))]) {
      const xs = all.filter((x) => x.tree === label && x.call === name);
      const cell = (pick: (x: Row) => number, d: number) => {
        const v = xs.map(pick);
        return `${fmt(median(v), d)} [${fmt(Math.min(...v), d)}–${fmt(Math.max(...v), d)}]`.padEnd(22);
      };
      const equal = xs.reduce((n, x) => n + x.equal, 0);
      const n = xs.reduce((k, x) => k + x.n, 0);
      process.stdout.write(`${label.padEnd(8)} ${name.padEnd(24)} ${cell((x) => x.p50, 3)} ${cell((x) => x.p99, 3)} ${cell((x) => x.cpuUs, 1)} ${equal}/${n}\n`);
    }
  }
  if (all.some((x) => x.equal !== x.n)) {
    process.stdout.write('some answers differ from btcd\'s\n');
    process.exitCode = 1;
  }
}

main().catch((err) => {
  process.stderr.write(`adapter-calls: ${(err as Error).message}\n`);
  process.exit(1);
});
