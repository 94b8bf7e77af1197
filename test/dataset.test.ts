/**
 * The dataset builder against the lab: a build over the lab's whole block range must agree with
 * the generator's ground truth for every address it shares with it, and with an independent walk
 * of the chain for every other line; filter and stats work on its output; a resumed build gives
 * the same bytes; and every user error exits 2 with one line and writes nothing.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { labEnv } from './lab/env';
import { labConfig } from '../src/lab/config';
import { ChainClient, readManifest, walkChain } from '../src/lab/generator';
import { NodeRpc } from '../src/node/rpc';
import { normaliseResult } from '../src/node/transport';
import { parseDatasetLine, DatasetLine } from '../src/dataset/line';
import { buildOptions } from '../src/dataset/options';
import { releaseClaims } from '../src/core/output-path';
import { buildDataset, BuildInterrupted } from '../src/dataset/build';
import { BuildEvents } from '../src/dataset/events';
import { scanBlocks } from '../src/dataset/scan';
import { fundedScriptsOf, candidateOf, scripthashOfHex } from '../src/dataset/outputs';
import { bucketOf } from '../src/dataset/buckets';
import { headerHash } from '../src/dataset/network';
import type { DatasetManifest } from '../src/dataset/manifest';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = path.join(ROOT, 'src', 'cli', 'dataset.ts');
const env = labEnv();
const truth = readManifest(env.manifestPath);
const electrumx = `electrum://${env.electrum.electrumx.host}:${env.electrum.electrumx.port}`;
const electrs = `electrum://${env.electrum.electrs.host}:${env.electrum.electrs.port}`;
const MIN = 10;
const MAX = 999;
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-dataset-'));
});
// Each build here stands for a command of its own: what it claimed is released when it ends.
afterEach(() => releaseClaims());
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The CLI as a child process; asynchronous, so servers living in this process keep answering. */
function dataset(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function buildArgs(out: string, over: Record<string, string> = {}): string[] {
  const o: Record<string, string> = {
    rpc: env.rpcUrl,
    'rpc-cookie': env.rpcCookieFile,
    from: '0',
    to: String(env.tip),
    'count-via': electrumx,
    'min-txs': String(MIN),
    'max-txs': String(MAX),
    out,
    ...over,
  };
  return ['build', '--no-progress', ...Object.entries(o).flatMap(([k, v]) => (v === '' ? [] : [`--${k}`, v]))];
}

function readLines(file: string): DatasetLine[] {
  return fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l, i) => parseDatasetLine(l, `${file}:${i + 1}`));
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const manifestOf = (file: string) => JSON.parse(fs.readFileSync(file.replace(/\.jsonl$/, '.manifest.json'), 'utf8')) as DatasetManifest;

/** One line of stderr, exit 2, and nothing left behind in `dir`. */
function expectUserError(r: { code: number | null; stderr: string }, pattern: RegExp, dir?: string): void {
  expect(r.code).toBe(2);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !/npm warn/i.test(l));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  if (dir) expect(fs.readdirSync(dir)).toEqual([]);
}

describe('dataset build over the lab range (ElectrumX)', () => {
  let out: string;
  let lines: DatasetLine[];
  let took: number;

  beforeAll(async () => {
    out = path.join(tmp, 'lab.jsonl');
    const started = Date.now();
    const r = await dataset(buildArgs(out));
    took = Date.now() - started;
    if (r.code !== 0) throw new Error(`build failed (${r.code}): ${r.stderr}`);
    lines = readLines(out);
    process.stderr.write(`dataset build over blocks 0..${env.tip} through ElectrumX: ${took} ms, ${lines.length} lines\n${r.stderr}`);
  });

  test('contains every ground-truth address in the tx range, each line agreeing with it', () => {
    const bySh = new Map(lines.map((l) => [l.scripthash, l]));
    const expected = truth.addresses.filter((a) => a.txCount >= MIN && a.txCount <= MAX);
    expect(expected.length).toBeGreaterThan(10);
    for (const a of expected) {
      const line = bySh.get(a.scripthash);
      expect(line).toBeDefined();
      const gt = parseDatasetLine(fs.readFileSync(env.datasetPath, 'utf8').split('\n').find((l) => l.includes(a.scripthash))!, env.datasetPath);
      expect({ address: line!.address, txCount: line!.txCount, utxoCount: line!.utxoCount, balance: line!.balance }).toEqual({
        address: gt.address,
        txCount: gt.txCount,
        utxoCount: gt.utxoCount,
        balance: gt.balance,
      });
      // An output script cannot tell what a P2SH wraps; everything else is named alike.
      expect(line!.type).toBe(gt.type === 'p2sh-p2wpkh' ? 'p2sh' : gt.type);
    }
  });

  test('every line, ground-truth address or not, agrees with an independent walk of the chain', async () => {
    const rpc = new NodeRpc({ url: env.rpcUrl, cookieFile: env.rpcCookieFile });
    try {
      const walk = await walkChain(new ChainClient(rpc), lines.map((l) => l.scripthash));
      for (const l of lines) {
        const t = walk.truths.get(l.scripthash)!;
        const confirmedUnspent = t.listunspent.filter((u) => Number(u.split(':')[3]) > 0).length;
        expect([l.scripthash, l.txCount, l.utxoCount, l.balance]).toEqual([t.scripthash, t.txCount, confirmedUnspent, t.balance]);
      }
    } finally {
      rpc.close();
    }
  });

  test('keeps only the tx range, sorted by txCount then scripthash, without duplicates', () => {
    expect(lines.every((l) => l.txCount >= MIN && l.txCount <= MAX)).toBe(true);
    const keys = lines.map((l) => `${String(l.txCount).padStart(9, '0')}:${l.scripthash}`);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('writes a manifest with source, network, range, tip, filters, buckets and content hash', async () => {
    const m = manifestOf(out);
    const rpc = new NodeRpc({ url: env.rpcUrl, cookieFile: env.rpcCookieFile });
    const tipHash = await rpc.call<string>('getblockhash', [truth.tipHeight]).finally(() => rpc.close());
    expect(m.source.node).toBe(env.rpcUrl);
    expect(JSON.stringify(m)).not.toContain(fs.readFileSync(env.rpcCookieFile, 'utf8').trim().split(':')[1]);
    expect(m.source.countVia).toBe(electrumx);
    expect(m.network).toBe('regtest');
    expect(m.range).toEqual({ from: 0, to: env.tip });
    expect(m.tip).toEqual({ height: truth.tipHeight, hash: tipHash });
    expect(m.filters).toMatchObject({ minTxs: MIN, maxTxs: MAX, buckets: 'log10', perBucket: null });
    expect(m.contentHash).toBe(sha256(out));
    expect(m.lines).toBe(lines.length);
    const perBucket: Record<string, number> = {};
    for (const l of lines) perBucket[bucketOf(l.txCount, 'log10').label] = (perBucket[bucketOf(l.txCount, 'log10').label] ?? 0) + 1;
    expect(m.buckets.counts).toEqual(perBucket);
    expect(m.tool.version).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    expect(fs.existsSync(`${out}.checkpoint`)).toBe(false);
  });

  test('electrs counts the same dataset', async () => {
    const other = path.join(tmp, 'lab-electrs.jsonl');
    await buildDataset(buildOptions(Object.fromEntries(pairs(buildArgs(other, { 'count-via': electrs })))), new BuildEvents());
    expect(fs.readFileSync(other, 'utf8')).toBe(fs.readFileSync(out, 'utf8'));
  });

  test('a build interrupted during its scan resumes from its checkpoint to the same bytes', async () => {
    const resumed = path.join(tmp, 'resumed.jsonl');
    const opts = buildOptions(Object.fromEntries(pairs(buildArgs(resumed))));
    const controller = new AbortController();
    const events = new BuildEvents();
    events.on('progress', (t) => t.phase === 'scan' && controller.abort());
    await expect(buildDataset(opts, events, controller.signal)).rejects.toBeInstanceOf(BuildInterrupted);
    expect(fs.existsSync(resumed)).toBe(false);
    const journal = fs.readFileSync(`${resumed}.checkpoint`, 'utf8').trim().split('\n');
    const scannedThrough = JSON.parse(journal[journal.length - 1]).through as number;
    expect(scannedThrough).toBeLessThan(env.tip);
    // The interrupted build's command ended here: what it claimed is free for the one that resumes.
    releaseClaims();

    const notes: string[] = [];
    const again = new BuildEvents();
    again.on('note', (n) => notes.push(n));
    let firstScanTick = -1;
    again.on('start', (t) => t.phase === 'scan' && (firstScanTick = t.done));
    await buildDataset(opts, again);
    expect(notes.some((n) => n.startsWith('resuming from'))).toBe(true);
    expect(firstScanTick).toBe(scannedThrough + 1); // blocks 0..scannedThrough were not read again
    expect(fs.readFileSync(resumed, 'utf8')).toBe(fs.readFileSync(out, 'utf8'));
    expect(fs.existsSync(`${resumed}.checkpoint`)).toBe(false);
  });

  test('a different command refuses to reuse the checkpoint', async () => {
    const file = path.join(tmp, 'refuse.jsonl');
    const controller = new AbortController();
    const events = new BuildEvents();
    events.on('progress', () => controller.abort());
    await expect(buildDataset(buildOptions(Object.fromEntries(pairs(buildArgs(file)))), events, controller.signal)).rejects.toBeInstanceOf(BuildInterrupted);
    const r = await dataset(buildArgs(file, { 'min-txs': '20' }));
    expectUserError(r, /refuse\.jsonl\.checkpoint belongs to a different build \(--min-txs 10 there, 20 here\)/);
    expect(fs.existsSync(file)).toBe(false);
  });

  test('--per-bucket takes a seeded, deterministic sample of each bucket', async () => {
    const a = path.join(tmp, 'strat-a.jsonl');
    const b = path.join(tmp, 'strat-b.jsonl');
    const c = path.join(tmp, 'strat-c.jsonl');
    expect((await dataset(buildArgs(a, { 'per-bucket': '4', seed: 'x', buckets: 'log2' }))).code).toBe(0);
    expect((await dataset(['filter', '--in', out, '--per-bucket', '4', '--seed', 'x', '--buckets', 'log2', '--out', b])).code).toBe(0);
    expect((await dataset(['filter', '--in', out, '--per-bucket', '4', '--seed', 'y', '--buckets', 'log2', '--out', c])).code).toBe(0);
    expect(fs.readFileSync(a, 'utf8')).toBe(fs.readFileSync(b, 'utf8'));
    expect(fs.readFileSync(a, 'utf8')).not.toBe(fs.readFileSync(c, 'utf8'));
    const counts = manifestOf(a).buckets.counts;
    expect(Math.max(...Object.values(counts))).toBeLessThanOrEqual(4);
    expect(manifestOf(a).buckets.scheme).toBe('log2');
    const all = new Set(lines.map((l) => l.scripthash));
    expect(readLines(a).every((l) => all.has(l.scripthash))).toBe(true);
  });

  test('filter derives a subset whose manifest names its parent', async () => {
    const sub = path.join(tmp, 'upto100.jsonl');
    const r = await dataset(['filter', '--in', out, '--max-txs', '100', '--types', 'p2wpkh,p2tr', '--out', sub]);
    expect(r.code).toBe(0);
    const expected = lines.filter((l) => l.txCount <= 100 && (l.type === 'p2wpkh' || l.type === 'p2tr'));
    expect(readLines(sub)).toEqual(expected);
    const m = manifestOf(sub);
    expect(m.parent).toEqual({ dataset: 'lab.jsonl', contentHash: sha256(out), manifest: 'lab.manifest.json' });
    expect(m.filters).toMatchObject({ minTxs: 1, maxTxs: 100, types: ['p2tr', 'p2wpkh'] });
    expect(m.range).toEqual({ from: 0, to: env.tip });
    expect(m.contentHash).toBe(sha256(sub));
  });

  test('filter reads the lab ground truth, keeping its tip', async () => {
    const sub = path.join(tmp, 'gt-small.jsonl');
    expect((await dataset(['filter', '--in', env.datasetPath, '--max-txs', '5', '--out', sub])).code).toBe(0);
    expect(readLines(sub).every((l) => l.txCount <= 5)).toBe(true);
    expect(manifestOf(sub).tip).toEqual({ height: truth.tipHeight, hash: truth.tipHash });
  });

  test('stats prints the bucket histogram, by type too', async () => {
    const r = await dataset(['stats', '--in', out]);
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n');
    expect(rows[0]).toMatch(/^txs\s+lines\s+share\s+p2pkh\s+p2sh\s+p2wpkh\s+p2wsh\s+p2tr$/);
    const row = (label: string) => rows.find((l) => l.startsWith(label + ' '))!.trim().split(/\s+/);
    const n10 = lines.filter((l) => l.txCount < 100).length;
    expect(row('10-99')[1]).toBe(String(n10));
    expect(row('100-999')[1]).toBe(String(lines.length - n10));
    expect(row('all')[1]).toBe(String(lines.length));
    const json = JSON.parse((await dataset(['stats', '--in', out, '--json', '--buckets', 'log2'])).stdout);
    expect(json.lines).toBe(lines.length);
    expect(json.buckets.reduce((s: number, b: { count: number }) => s + b.count, 0)).toBe(lines.length);
    expect(json.byType.p2wpkh).toBe(lines.filter((l) => l.type === 'p2wpkh').length);
  });
});

describe('scan reads every node dialect alike', () => {
  test("btcd's own getblock (transactions under rawtx, renamed once by the node transport) gives the adapter's candidates", async () => {
    const cfg = labConfig();
    const viaAdapter = new NodeRpc({ url: env.rpcUrl, cookieFile: env.rpcCookieFile });
    const viaBtcd = new NodeRpc({ url: `http://${cfg.host}:${cfg.ports.btcdRpc}`, cookieFile: env.rpcCookieFile });
    try {
      // btcd answers with `rawtx`; the one node transport hands every caller Core's `tx`.
      const raw = await viaBtcd.call<{ rawtx?: unknown; tx?: unknown }>('getblock', [await viaBtcd.call('getblockhash', [env.tip]), 2]);
      expect(raw.rawtx).toBeUndefined();
      expect(Array.isArray(raw.tx)).toBe(true);
      const scan = async (rpc: NodeRpc) => {
        const state = { scannedThrough: -1, candidates: new Map() };
        await scanBlocks(rpc, { from: 0, to: env.tip, network: 'regtest', concurrency: 3 }, state, () => undefined);
        return [...state.candidates.values()];
      };
      const [a, b] = await Promise.all([scan(viaAdapter), scan(viaBtcd)]);
      expect(a.length).toBeGreaterThan(truth.addresses.length);
      expect(b).toEqual(a);
    } finally {
      viaAdapter.close();
      viaBtcd.close();
    }
  });

  test('Core ≥ 22, older Core and (normalised) btcd output forms give the same candidates; OP_RETURN and zero value are skipped', () => {
    const p2wpkh = '0014' + '11'.repeat(20);
    const p2pk = '21' + '02' + '22'.repeat(32) + 'ac';
    const vout = (style: 'address' | 'addresses' | 'both') => [
      { value: 0.5, n: 0, scriptPubKey: { hex: p2wpkh, ...(style !== 'addresses' ? { address: 'ignored' } : {}), ...(style !== 'address' ? { addresses: ['ignored'] } : {}) } },
      { value: 0, n: 1, scriptPubKey: { hex: '76a914' + '33'.repeat(20) + '88ac' } },
      { value: 0.0001, n: 2, scriptPubKey: { hex: '6a0401020304' } },
      { value: 1, n: 3, scriptPubKey: { hex: p2pk } },
    ];
    const forms = [{ tx: [{ txid: 'a', vout: vout('address') }] }, { tx: [{ txid: 'a', vout: vout('addresses') }] }, normaliseResult('getblock', { rawtx: [{ txid: 'a', vout: vout('both') }] })];
    const results = forms.map((f) => fundedScriptsOf(f, 'test block'));
    for (const r of results) expect(r).toEqual([p2wpkh, p2pk]);
    const c = candidateOf(p2pk, scripthashOfHex(p2pk), 'regtest');
    expect(c).toEqual({ scripthash: scripthashOfHex(p2pk), type: 'nonstandard', address: null });
    expect(candidateOf(p2wpkh, scripthashOfHex(p2wpkh), 'regtest').address).toMatch(/^bcrt1q/);
    expect(() => fundedScriptsOf({ tx: ['txid-only'] }, 'old node block 7')).toThrow(/old node block 7: .*txids/);
  });

  test('log buckets have exact integer bounds', () => {
    expect([1, 9, 10, 99, 100, 999, 1000].map((n) => bucketOf(n, 'log10').label)).toEqual(['1-9', '1-9', '10-99', '10-99', '100-999', '100-999', '1000-9999']);
    expect([1, 2, 3, 4, 7, 8, 1023, 1024].map((n) => bucketOf(n, 'log2').label)).toEqual(['1', '2-3', '2-3', '4-7', '4-7', '8-15', '512-1023', '1024-2047']);
  });
});

describe('dataset addresses: the addresses a user names, counted through the server to measure', () => {
  const groundTruth = () => fs.readFileSync(env.datasetPath, 'utf8').split('\n').filter(Boolean).map((l) => parseDatasetLine(l, env.datasetPath));

  test('every line agrees with the lab ground truth, from arguments and from a file alike', async () => {
    // Every history size the lab has, small to its largest, and every script type.
    const all = groundTruth();
    const picked = [...new Map(all.map((l) => [`${l.type}`, l])).values(), ...all.filter((l) => l.txCount >= 100)].filter((l) => l.address !== null);
    expect(new Set(picked.map((l) => l.type)).size).toBeGreaterThanOrEqual(5);
    const addresses = [...new Set(picked.map((l) => l.address!))];
    const dir = fs.mkdtempSync(path.join(tmp, 'addresses-'));
    const fromArgs = path.join(dir, 'args.jsonl');
    const r = await dataset(['addresses', '--count-via', electrumx, ...addresses, '--out', fromArgs]);
    expect(r.stderr.split('\n').filter((l) => l && !/npm warn/i.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`wrote ${fromArgs}: ${addresses.length} regtest addresses counted by ElectrumX`));
    const lines = readLines(fromArgs);
    expect(lines.map((l) => l.address).sort()).toEqual([...addresses].sort());
    const byAddress = new Map(all.map((l) => [l.address, l]));
    for (const line of lines) {
      const gt = byAddress.get(line.address)!;
      expect({ address: line.address, scripthash: line.scripthash, txCount: line.txCount, utxoCount: line.utxoCount, balance: line.balance }).toEqual({
        address: gt.address,
        scripthash: gt.scripthash,
        txCount: gt.txCount,
        utxoCount: gt.utxoCount,
        balance: gt.balance,
      });
      expect(line.type).toBe(gt.type === 'p2sh-p2wpkh' ? 'p2sh' : gt.type);
    }
    const m = manifestOf(fromArgs);
    expect(m.network).toBe('regtest');
    expect(m.source).toEqual({ node: null, countVia: electrumx, countServer: expect.stringMatching(/ElectrumX/) });
    expect(m.notes?.[0]).toMatch(/not an independent walk of the chain/);

    const list = path.join(dir, 'addresses.txt');
    fs.writeFileSync(list, ['# my addresses', ...addresses.map((a, i) => (i % 2 ? `  ${a}  # note` : a)), ''].join('\n'));
    const fromFile = path.join(dir, 'file.jsonl');
    expect((await dataset(['addresses', '--count-via', electrumx, '--in', list, '--out', fromFile])).code).toBe(0);
    expect(fs.readFileSync(fromFile, 'utf8')).toBe(fs.readFileSync(fromArgs, 'utf8'));
  });

  test('an address of another network, one given twice, none at all, an existing --out: one line, exit 2, nothing written', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'addresses-err-'));
    const out = path.join(dir, 'x.jsonl');
    const one = groundTruth().find((l) => l.address !== null)!.address!;
    expectUserError(
      await dataset(['addresses', '--count-via', electrumx, one, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', '--out', out]),
      new RegExp(`address "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" \\(argument 2\\) is not a regtest address, and ${electrumx} serves regtest`),
      dir,
    );
    expectUserError(await dataset(['addresses', '--count-via', electrumx, one, one, '--out', out]), new RegExp(`address ${one} \\(argument 2\\) is given twice \\(also argument 1\\)`), dir);
    expectUserError(await dataset(['addresses', '--count-via', electrumx, '--out', out]), /name at least one address/, dir);
    fs.writeFileSync(out, 'mine\n');
    expectUserError(await dataset(['addresses', '--count-via', electrumx, one, '--out', out]), /already exists \(pass --force to replace it\)/);
    expect(fs.readFileSync(out, 'utf8')).toBe('mine\n');
  });
});

describe('user errors exit 2 with one line and write nothing', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(tmp, 'err-'));
  });
  const out = () => path.join(dir, 'x.jsonl');

  test('unreachable node', async () => {
    const port = await freePort();
    expectUserError(await dataset(buildArgs(out(), { rpc: `http://127.0.0.1:${port}` })), new RegExp(`node http://127.0.0.1:${port} is unreachable`), dir);
  });

  test('wrong credentials, never echoing the password', async () => {
    const r = await dataset(buildArgs(out(), { 'rpc-cookie': '', 'rpc-user': 'nobody' }), { ELECTRUM_BENCH_RPC_PASSWORD: 's3cret-pw' });
    expectUserError(r, /wrong RPC credentials/, dir);
    expect(r.stderr + r.stdout).not.toContain('s3cret-pw');
  });

  test('--to beyond the tip', async () => {
    expectUserError(await dataset(buildArgs(out(), { to: String(env.tip + 5) })), new RegExp(`--to ${env.tip + 5} is beyond the tip .* \\(height ${env.tip}\\)`), dir);
  });

  test('--from above --to', async () => {
    expectUserError(await dataset(buildArgs(out(), { from: '20', to: '10' })), /--from 20 is above --to 10/, dir);
  });

  test('unreachable Electrum server', async () => {
    const port = await freePort();
    expectUserError(await dataset(buildArgs(out(), { 'count-via': `electrum://127.0.0.1:${port}` })), new RegExp(`electrum server electrum://127.0.0.1:${port} is unreachable`), dir);
  });

  test('node on another network than the Electrum server', async () => {
    const stub = await mainnetStub();
    try {
      expectUserError(
        await dataset(buildArgs(out(), { 'count-via': `electrum://127.0.0.1:${stub.port}` })),
        new RegExp(`node ${env.rpcUrl} is on regtest but electrum server electrum://127.0.0.1:${stub.port} is on mainnet`),
        dir,
      );
    } finally {
      stub.close();
    }
  });

  test('a bad dataset line, for filter and for stats, names the file and line', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    const good = fs.readFileSync(env.datasetPath, 'utf8').split('\n');
    fs.writeFileSync(bad, [good[0], good[1], '{"address":"x","scripthash":"nothex"}', ''].join('\n'));
    expectUserError(await dataset(['stats', '--in', bad]), new RegExp(`${bad}:3: "scripthash" must be 64 lowercase hex`));
    expectUserError(await dataset(['filter', '--in', bad, '--out', path.join(dir, 'f.jsonl')]), new RegExp(`${bad}:3: `));
    expect(fs.readdirSync(dir)).toEqual(['bad.jsonl']);
  });
});

function pairs(args: string[]): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (let i = 1; i < args.length; i++) {
    const k = args[i].replace(/^--/, '');
    if (k === 'no-progress') continue;
    out.push([k, args[++i]]);
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The lab has one chain, so "an Electrum server on another network" is a stub that answers the
 * only two calls the check makes before failing: server.version and block 0's header (Bitcoin
 * mainnet's genesis header).
 */
const MAINNET_GENESIS_HEADER =
  '0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c';

function mainnetStub(): Promise<{ port: number; close(): void }> {
  expect(headerHash(MAINNET_GENESIS_HEADER)).toBe('000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const req = JSON.parse(buf.slice(0, nl)) as { id: number; method: string };
        buf = buf.slice(nl + 1);
        const result =
          req.method === 'server.version' ? ['stub 0.1', '1.4'] : req.method === 'blockchain.block.header' ? MAINNET_GENESIS_HEADER : null;
        socket.write(JSON.stringify(result === null ? { jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'unknown method' } } : { jsonrpc: '2.0', id: req.id, result }) + '\n');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    ),
  );
}
