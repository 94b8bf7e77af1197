/**
 * Every error a user can cause, through the CLIs' own door (each command's main run to its exit
 * code by the process's error handler, in this process), with no lab: bad dataset lines, config
 * files, option values, server specs, unreachable servers and nodes. Each must print one line
 * naming the input, exit 2, and leave no file behind (no empty database, no empty report
 * directory) and nothing running. Servers and nodes that "do not exist" are a loopback port just
 * freed.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import Database from 'better-sqlite3';
import { scriptHashOfAddress } from '../../../src/electrum/scripthash';
import { startMisbehavingServer, Misbehaving } from '../../support/misbehaving-server';
import { GENESIS_HEADER } from '../../support/genesis';
import { cli, COMMAND_NAMES, type CommandName } from '../../support/cli';
import { fileLimit } from '../../../src/cli/wallet-load';


/** Paths a case can use: read-only fixtures, its own directory (the command's cwd), a dead port. */
interface Ctx {
  fx: (name: string) => string;
  dir: string;
  dead: number;
  /** Ports of our misbehaving server: accepts and never answers; answers with no end of line; drips bytes. */
  silent: number;
  noEol: number;
  drip: number;
  /** Ports of our misbehaving server claiming mainnet's and regtest's block 0. */
  onMainnet: number;
  onRegtest: number;
  /** Ports of our misbehaving server answering null to what it does not know (the tip among it); the first says regtest's block 0, the second null to that too. */
  nullOnRegtest: number;
  nulls: number;
}

interface Case {
  name: string;
  cli: CommandName;
  args: (c: Ctx) => string[];
  /** What the one line must contain: the offending file, value or option. */
  names: (c: Ctx) => Array<string | RegExp>;
  /** Files the user had before the command (the listing afterwards must be the same). */
  setup?: (dir: string) => void;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-user-errors-'));
const fixtures = path.join(tmp, 'fixtures');
const fx = (name: string) => path.join(fixtures, name);

function line(seed: number, overrides: Record<string, unknown> = {}): string {
  const address = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, seed), network: bitcoin.networks.regtest }).address!;
  return JSON.stringify({
    address,
    scripthash: scriptHashOfAddress(address, 'regtest'),
    type: 'p2wpkh',
    txCount: 3,
    utxoCount: 1,
    balance: { confirmed: 5000, unconfirmed: 0 },
    ...overrides,
  });
}

function mainnetLine(seed: number): string {
  const address = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, seed), network: bitcoin.networks.bitcoin }).address!;
  return JSON.stringify({ address, scripthash: scriptHashOfAddress(address, 'mainnet'), type: 'p2wpkh', txCount: 3, utxoCount: 1, balance: { confirmed: 5000, unconfirmed: 0 } });
}

const otherScripthash = scriptHashOfAddress(bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 99), network: bitcoin.networks.regtest }).address!, 'regtest');

/** Dataset files whose second line (or whole content) is wrong. */
const DATASETS: Record<string, string> = {
  'good.jsonl': `${line(1)}\n${line(2)}\n`,
  'bad-json.jsonl': `${line(1)}\n{"address": "bcrt1q", "scripthash":\n`,
  'no-scripthash.jsonl': `${line(1)}\n${line(2, { scripthash: undefined })}\n`,
  'short-scripthash.jsonl': `${line(1)}\n${line(2, { scripthash: 'ab'.repeat(31) })}\n`,
  'negative-txcount.jsonl': `${line(1)}\n${line(2, { txCount: -1 })}\n`,
  'string-txcount.jsonl': `${line(1)}\n${line(2, { txCount: '3' })}\n`,
  'bad-type.jsonl': `${line(1)}\n${line(2, { type: 'p2xx' })}\n`,
  'bad-address.jsonl': `${line(1)}\n${line(2, { address: 'bcrt1qnotanaddress' })}\n`,
  'wrong-scripthash.jsonl': `${line(1)}\n${line(2, { scripthash: otherScripthash })}\n`,
  'duplicate.jsonl': `${line(1)}\n${line(1)}\n`,
  'empty.jsonl': '',
  'mainnet.jsonl': `${mainnetLine(1)}\n${mainnetLine(2)}\n`,
  'facts.jsonl': `${line(1)}\n${line(2)}\n`,
};

/** Chain facts beside facts.jsonl that cannot serve the wallet calls: line 1 has only a mempool transaction, line 2 no history. */
const MANIFESTS: Record<string, string> = {
  'facts.manifest.json': JSON.stringify({ headers: ['00'.repeat(80)], addresses: [{ scripthash: JSON.parse(line(1)).scripthash, history: [{ tx_hash: 'ab'.repeat(32), height: 0 }] }] }),
};

const walletScript = (seed: number) => {
  const address = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, seed), network: bitcoin.networks.regtest }).address!;
  return { address, scripthash: scriptHashOfAddress(address, 'regtest') };
};
/** Unused scripts after the used ones, as `dataset wallets --gap` pads a chain. */
const unusedScripts = (name: string, chain: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ address: null, scripthash: createHash('sha256').update(`${name} ${chain} ${i}`).digest('hex') }));

/** A wallets file's line, fine but for what a case overrides: one used script, and the gap of 30 every workload's scan fits in. */
function walletLine(name: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    wallet: name,
    origin: 'synthetic',
    type: 'p2wpkh',
    gap: 30,
    expected: { txCount: 3, txCountExact: false, balance: { confirmed: 5000, unconfirmed: 0 }, usedScripts: { receive: 1, change: 0 } },
    chains: { receive: [walletScript(1), ...unusedScripts(name, 'receive', 30)], change: unusedScripts(name, 'change', 30) },
    ...overrides,
  });
}

const WALLETS: Record<string, string> = {
  'wallets.jsonl': `${walletLine('a')}\n${walletLine('b')}\n`,
  'wallets-no-chains.jsonl': `${walletLine('a')}\n${walletLine('b', { chains: undefined })}\n`,
  'wallets-twice.jsonl': `${walletLine('a')}\n${walletLine('a')}\n`,
  'wallets-overused.jsonl': `${walletLine('a')}\n${walletLine('b', { expected: { txCount: 3, txCountExact: true, balance: { confirmed: 1, unconfirmed: 0 }, usedScripts: { receive: 40, change: 0 } } })}\n`,
  // Enough for Electrum's 20 + 10 and Sparrow's 20 + 20 past the used ones, short of BDK's batches of 10 to a stop gap of 20.
  'wallets-gap-20.jsonl': `${walletLine('a')}\n${walletLine('b', { gap: 20, chains: { receive: [walletScript(1), ...unusedScripts('b', 'receive', 20)], change: unusedScripts('b', 'change', 20) } })}\n`,
  'wallets-gap-1.jsonl': `${walletLine('a')}\n${walletLine('b', { gap: 1, chains: { receive: [walletScript(1), walletScript(2)], change: [walletScript(3)] } })}\n`,
};

const CERTS: Record<string, string> = {
  'not-a-cert.pem': 'this is not a certificate\n',
  'broken-cert.pem': '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n',
};

const CONFIGS: Record<string, string> = {
  'bad-json.json': '{"passes": 3,',
  'unknown.json': '{"passes": 3, "frobnicate": true}',
  'passes-string.json': '{"passes": "many"}',
  'server-number.json': '{"server": 5}',
};

/** A case's setup: another program's SQLite database in the case's directory. */
const foreignDb = (name: string, wal = false) => (dir: string) => {
  const db = new Database(path.join(dir, name));
  if (wal) db.pragma('journal_mode = WAL');
  db.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('alice')");
  db.close();
};

async function deadPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** A bench command line that is fine but for what the case changes. */
const bench = (c: Ctx, ...extra: string[]) => [
  '--no-progress',
  '--server',
  `electrumx@127.0.0.1:${c.dead}`,
  '--dataset',
  c.fx('good.jsonl'),
  ...(extra.includes('--db') ? [] : ['--db', path.join(c.dir, 'r.sqlite')]),
  ...extra,
];
const benchData = (file: string) => (c: Ctx) => ['--no-progress', '--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx(file), '--db', path.join(c.dir, 'r.sqlite')];
const benchServer = (...spec: string[]) => (c: Ctx) => ['--no-progress', ...spec.flatMap((s) => ['--server', s.replace('DEAD', String(c.dead))]), '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite')];
const build = (c: Ctx, o: Record<string, string> = {}) =>
  Object.entries({
    rpc: `http://127.0.0.1:${c.dead}`,
    from: '0',
    to: '10',
    'count-via': `electrum://127.0.0.1:${c.dead}`,
    out: path.join(c.dir, 'o.jsonl'),
    ...o,
  }).flatMap(([k, v]) => [`--${k}`, v]);
const inFile = (file: string) => (c: Ctx) => [c.fx(file) + ':2'];
/** A whole-wallet bench or load command line that is fine but for what the case changes. */
const wallets = (c: Ctx, file = 'wallets.jsonl', ...extra: string[]) => [
  '--no-progress',
  '--server',
  `electrumx@127.0.0.1:${c.dead}`,
  '--workload',
  'electrum',
  '--wallets',
  c.fx(file),
  '--db',
  path.join(c.dir, 'r.sqlite'),
  ...extra,
];
/** `load --interleave` (turns) and `--baseline` (an A/B run): each problem before any server is asked. */
function interleaveCases(): Case[] {
  const two = (c: Ctx, ...extra: string[]) => ['--server', `a=electrumx@127.0.0.1:${c.dead}`, '--server', `b=electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite'), ...extra];
  return [
    { name: 'load: --interleave with one server', cli: 'load', args: (c) => two(c, '--rate', '5', '--interleave', '1s').slice(2), names: () => ['--interleave', 'at least two'] },
    { name: 'load: --interleave shorter than a second', cli: 'load', args: (c) => two(c, '--rate', '5', '--interleave', '500ms'), names: () => ['--interleave', '1s'] },
    { name: 'load: --interleave that is not a duration', cli: 'load', args: (c) => two(c, '--rate', '5', '--interleave', 'often'), names: () => ['interleave', 'often'] },
    { name: 'load: --interleave longer than the run', cli: 'load', args: (c) => two(c, '--rate', '5', '--duration', '10s', '--interleave', '20s'), names: () => ['--interleave 20s', '--duration 10s'] },
    { name: 'load: --interleave whose turns hold part of a request', cli: 'load', args: (c) => two(c, '--rate', '2.5', '--duration', '10s', '--interleave', '1s'), names: () => ['--interleave 1s', '--rate 2.5', '2.5 requests', 'send 3'] },
    { name: "load: --interleave whose last turn holds part of a request", cli: 'load', args: (c) => two(c, '--rate', '2', '--duration', '7250ms', '--interleave', '2s'), names: () => ['--interleave 2s', '--rate 2', 'last turn', '2.5 requests'] },
    { name: 'load: --interleave with a ramp', cli: 'load', args: (c) => two(c, '--stages', '10s:50', '--interleave', '2s'), names: () => ['--interleave', '--stages'] },
    { name: 'load: --interleave with iterations', cli: 'load', args: (c) => two(c, '--iterations', '100', '--interleave', '2s'), names: () => ['--interleave', '--iterations'] },
    { name: 'load: --interleave with --find-max', cli: 'load', args: (c) => two(c, '--find-max', '--slo', 'p99<50ms', '--interleave', '2s'), names: () => ['--interleave', '--find-max'] },
    { name: 'load: --find-max with --shard (each step judged on a rate one shard does not send)', cli: 'load', args: (c) => two(c, '--find-max', '--slo', 'p99<50ms', '--shard', '1/2'), names: () => ['--shard', '--find-max'] },
    { name: 'load: --interleave with --shard', cli: 'load', args: (c) => two(c, '--rate', '5', '--shard', '1/2', '--interleave', '2s'), names: () => ['--interleave', '--shard'] },
    { name: 'load: --baseline without --interleave', cli: 'load', args: (c) => two(c, '--rate', '5', '--baseline', 'a'), names: () => ['--baseline', '--interleave'] },
    { name: 'load: --baseline naming no server loaded', cli: 'load', args: (c) => two(c, '--rate', '5', '--interleave', '1s', '--baseline', 'c'), names: () => ['--baseline', 'c', 'a, b'] },
    { name: 'load: --fail-on-regression without --baseline', cli: 'load', args: (c) => two(c, '--rate', '5', '--interleave', '1s', '--fail-on-regression', '5'), names: () => ['--fail-on-regression', '--baseline'] },
    { name: 'load: --fail-on-regression below 0', cli: 'load', args: (c) => two(c, '--rate', '5', '--interleave', '1s', '--baseline', 'a', '--fail-on-regression', '-3'), names: () => ['--fail-on-regression', '-3'] },
    { name: 'wallets: --interleave with --workload', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--interleave', '1s'), names: () => ['--interleave', '--workload'] },
  ];
}

/**
 * The limit is this process's: an idle-connections abuse opening as many connections as it allows
 * passes it by the margin; where it allows more than a profile may open, held wallets make up the rest.
 */
function abusePastFileLimit(): string[] {
  const soft = fileLimit()?.soft ?? 4096;
  const connections = Math.min(soft, 100_000);
  return ['--hold', String(soft - connections), '--abuse', `idle-connections:connections=${connections}`];
}

const walletLoad = (c: Ctx, ...extra: string[]) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--workload', 'electrum', '--wallets', c.fx('wallets.jsonl'), '--db', path.join(c.dir, 'r.sqlite'), ...extra];

const CASES: Case[] = [
  // dataset lines, through each command that reads them
  { name: 'dataset: a line that is not JSON', cli: 'bench', args: benchData('bad-json.jsonl'), names: inFile('bad-json.jsonl') },
  { name: 'dataset: no scripthash', cli: 'dataset', args: (c) => ['stats', '--in', c.fx('no-scripthash.jsonl')], names: (c) => [c.fx('no-scripthash.jsonl') + ':2', '"scripthash"'] },
  { name: 'dataset: scripthash of 62 hex digits', cli: 'bench', args: benchData('short-scripthash.jsonl'), names: (c) => [c.fx('short-scripthash.jsonl') + ':2', '"scripthash"'] },
  {
    name: 'dataset: negative txCount',
    cli: 'dataset',
    args: (c) => ['filter', '--in', c.fx('negative-txcount.jsonl'), '--out', path.join(c.dir, 'sub', 'f.jsonl')],
    names: (c) => [c.fx('negative-txcount.jsonl') + ':2', '"txCount"'],
  },
  { name: 'dataset: txCount as a string', cli: 'bench', args: benchData('string-txcount.jsonl'), names: (c) => [c.fx('string-txcount.jsonl') + ':2', '"txCount"'] },
  { name: 'dataset: unknown type', cli: 'dataset', args: (c) => ['stats', '--in', c.fx('bad-type.jsonl')], names: (c) => [c.fx('bad-type.jsonl') + ':2', '"type"'] },
  { name: 'dataset: an address that does not parse', cli: 'bench', args: benchData('bad-address.jsonl'), names: (c) => [c.fx('bad-address.jsonl') + ':2', 'bcrt1qnotanaddress'] },
  { name: 'dataset: address and scripthash disagree', cli: 'dataset', args: (c) => ['stats', '--in', c.fx('wrong-scripthash.jsonl')], names: (c) => [c.fx('wrong-scripthash.jsonl') + ':2', '"scripthash"'] },
  {
    name: 'dataset: the same scripthash twice',
    cli: 'dataset',
    args: (c) => ['filter', '--in', c.fx('duplicate.jsonl'), '--out', path.join(c.dir, 'f.jsonl')],
    names: (c) => [c.fx('duplicate.jsonl') + ':2', 'line 1'],
  },
  { name: 'dataset: empty file', cli: 'bench', args: benchData('empty.jsonl'), names: (c) => ['--dataset', c.fx('empty.jsonl')] },
  { name: 'dataset: no such file', cli: 'bench', args: benchData('missing.jsonl'), names: (c) => ['--dataset', c.fx('missing.jsonl')] },

  // --config files
  { name: 'config: not JSON', cli: 'bench', args: (c) => [...bench(c), '--config', c.fx('bad-json.json')], names: () => ['--config', 'bad-json.json'] },
  { name: 'config: no such file', cli: 'bench', args: (c) => [...bench(c), '--config', c.fx('missing.json')], names: () => ['--config', 'missing.json'] },
  { name: 'config: unknown option', cli: 'bench', args: (c) => [...bench(c), '--config', c.fx('unknown.json')], names: () => ['unknown.json', 'frobnicate'] },
  { name: 'config: passes as a word', cli: 'bench', args: (c) => [...bench(c), '--config', c.fx('passes-string.json')], names: () => ['passes-string.json', '"passes"'] },
  { name: 'config: server as a number', cli: 'bench', args: (c) => [...bench(c), '--config', c.fx('server-number.json')], names: () => ['server-number.json', '"server"'] },

  // bench option values
  { name: 'bench: --passes 0', cli: 'bench', args: (c) => bench(c, '--passes', '0'), names: () => ['--passes', '0'] },
  { name: 'bench: --warmup equal to --passes', cli: 'bench', args: (c) => bench(c, '--passes', '3', '--warmup', '3'), names: () => ['--warmup', '--passes'] },
  { name: 'bench: --timeout -1', cli: 'bench', args: (c) => bench(c, '--timeout', '-1'), names: () => ['--timeout', '-1'] },
  { name: 'bench: --concurrency 0', cli: 'bench', args: (c) => bench(c, '--concurrency', '0'), names: () => ['--concurrency', '0'] },
  { name: 'bench: --methods foo', cli: 'bench', args: (c) => bench(c, '--methods', 'foo'), names: () => ['--methods', 'foo'] },
  { name: 'bench: --methods tx,foo', cli: 'bench', args: (c) => bench(c, '--methods', 'tx,foo'), names: () => ['--methods', 'foo'] },
  { name: 'bench: --methods tx on a dataset with no chain facts', cli: 'bench', args: (c) => bench(c, '--methods', 'tx'), names: () => ['--methods tx', 'good.jsonl'] },
  {
    name: 'bench: --methods merkle,header on chain facts without a confirmed transaction',
    cli: 'bench',
    args: (c) => [...benchData('facts.jsonl')(c), '--methods', 'merkle,header'],
    names: () => ['--methods merkle,header', 'no confirmed transaction'],
  },
  { name: 'bench: --methods mempool over Esplora REST', cli: 'bench', args: (c) => [...benchServer('esplora-rest@http://127.0.0.1:DEAD')(c), '--methods', 'mempool'], names: () => ['--methods mempool', 'esplora-rest'] },
  { name: 'bench: --baseline of no measured server', cli: 'bench', args: (c) => bench(c, '--server', `b=electrumx@127.0.0.1:${c.dead}`, '--baseline', 'nope'), names: () => ['--baseline', 'nope'] },
  { name: 'bench: --baseline with one server', cli: 'bench', args: (c) => bench(c, '--baseline', 'electrumx'), names: () => ['--baseline', 'at least two'] },
  { name: 'bench: --fail-on-regression without --baseline', cli: 'bench', args: (c) => bench(c, '--fail-on-regression', '5'), names: () => ['--fail-on-regression', '--baseline'] },
  { name: 'bench: a lab version that does not run', cli: 'bench', args: (c) => ['--server', 'electrumx-1.2.3', '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite')], names: () => ['electrumx-1.2.3', 'lab -- up --with electrumx@1.2.3'] },
  { name: 'bench: --limit abc', cli: 'bench', args: (c) => bench(c, '--limit', 'abc'), names: () => ['--limit'] },
  { name: 'bench: --dashboard at a bad address', cli: 'bench', args: (c) => bench(c, '--dashboard', 'localhost:99999'), names: () => ['--dashboard', 'localhost:99999'] },
  { name: 'bench: --out of an unknown output', cli: 'bench', args: (c) => bench(c, '--out', 'influxdb=http://x'), names: () => ['--out', 'influxdb'] },
  { name: 'bench: --dashboard with a --param sweep', cli: 'bench', args: (c) => bench(c, '--dashboard', '0', '--param', 'a=1,2'), names: () => ['--param', '--dashboard'] },
  // --cold: where it cannot drop the page cache (not root, drop_caches not writable) that comes first, naming why
  { name: 'bench: --cold on a server the lab does not run', cli: 'bench', args: (c) => bench(c, '--cold', '--passes', '3'), names: (c) => ['--cold', new RegExp(`electrumx \\(tcp://127\\.0\\.0\\.1:${c.dead}\\) is not one the lab runs|needs root|drop_caches is not writable`)] },
  { name: 'bench: --cold with one counted pass', cli: 'bench', args: (c) => bench(c, '--cold', '--passes', '2', '--warmup', '1'), names: () => ['--cold', /--passes 2 --warmup 1|needs root|drop_caches is not writable/] },
  { name: 'bench: --cold with a --param sweep', cli: 'bench', args: (c) => bench(c, '--cold', '--param', 'a=1,2'), names: () => ['--cold', '--param'] },
  { name: 'bench: --cold with a resource flag', cli: 'bench', args: (c) => bench(c, '--cold', '--passes', '3', '--server-pid', `electrumx=${process.pid}`), names: () => ['--cold', '--server-pid'] },
  { name: 'wallet bench: a resource flag with --workload', cli: 'bench', args: (c) => wallets(c, 'wallets.jsonl', '--server-pid', `electrumx=${process.pid}`), names: () => ['--workload', '--server-pid'] },
  { name: 'wallet load: a resource flag without --abuse', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '10s', '--metrics', 'electrumx=http://127.0.0.1:1/'), names: () => ['--abuse', '--metrics'] },
  { name: 'wallet bench: --cold with --workload', cli: 'bench', args: (c) => wallets(c, 'wallets.jsonl', '--cold'), names: () => ['--cold', '--workload'] },
  { name: 'wallet bench: --out json with no file', cli: 'bench', args: (c) => [...wallets(c), '--out', 'json='], names: () => ['--out json=FILE'] },
  {
    name: 'bench: --db is a directory',
    cli: 'bench',
    setup: (dir) => fs.mkdirSync(path.join(dir, 'results.d')),
    args: (c) => bench(c, '--db', path.join(c.dir, 'results.d')),
    names: (c) => ['--db', path.join(c.dir, 'results.d')],
  },
  {
    name: 'bench: --db is not a SQLite file',
    cli: 'bench',
    setup: (dir) => fs.writeFileSync(path.join(dir, 'notes.sqlite'), 'my notes\n'),
    args: (c) => bench(c, '--db', path.join(c.dir, 'notes.sqlite')),
    names: (c) => ['--db', path.join(c.dir, 'notes.sqlite')],
  },
  { name: 'bench: --db given twice', cli: 'bench', args: (c) => [...bench(c), '--db', path.join(c.dir, 'other.sqlite')], names: () => ['--db', 'given 2 times'] },
  // Every command refuses a repeated single value the same way (cli/validate.ts refusingMistakes).
  { name: 'load hlog: --out given twice', cli: 'load', args: (c) => ['hlog', '--db', path.join(c.dir, 'none.sqlite'), '--out', path.join(c.dir, 'a.hlog'), '--out', path.join(c.dir, 'b.hlog')], names: () => ['--out', 'given 2 times'] },
  { name: 'index-bench: --repeat given twice', cli: 'index-bench', args: (c) => ['--repeat', '2', '--repeat', '3', '--db', path.join(c.dir, 'i.sqlite')], names: () => ['--repeat', 'given 2 times'] },
  { name: 'cluster: --shards given twice', cli: 'cluster', args: () => ['render', '--shards', '2', '--shards', '3', '--', 'load', '--rate', '5'], names: () => ['--shards', 'given 2 times'] },
  { name: 'bench: --resume on a missing database', cli: 'bench', args: (c) => ['--resume', '1', '--db', path.join(c.dir, 'r.sqlite')], names: (c) => ['--resume', path.join(c.dir, 'r.sqlite')] },

  // server specs
  { name: 'server: unknown profile', cli: 'bench', args: benchServer('nosuch@127.0.0.1:DEAD'), names: () => ['--server', 'nosuch'] },
  { name: 'server: port 0', cli: 'bench', args: benchServer('electrumx@127.0.0.1:0'), names: () => ['electrumx@127.0.0.1:0', 'port'] },
  { name: 'server: port 70000', cli: 'bench', args: benchServer('electrumx@127.0.0.1:70000'), names: () => ['electrumx@127.0.0.1:70000', 'port'] },
  { name: 'server: garbage', cli: 'bench', args: benchServer('!!!'), names: () => ['--server', '!!!'] },
  { name: 'server: IPv6 without brackets', cli: 'bench', args: benchServer('electrumx@::1:50001'), names: () => ['--server', 'electrumx@::1:50001', 'brackets'] },
  { name: 'server: IPv6 bracket never closed', cli: 'bench', args: benchServer('electrumx@[::1:50001'), names: () => ['--server', 'electrumx@[::1:50001'] },
  { name: 'server: not an IPv6 address in brackets', cli: 'bench', args: benchServer('electrumx@[zz::1]:50001'), names: () => ['--server', '[zz::1]'] },
  { name: 'server: unreachable', cli: 'bench', args: benchServer('electrumx@127.0.0.1:DEAD'), names: (c) => ['electrumx', `127.0.0.1:${c.dead}`, 'unreachable'] },
  { name: 'server: http:// for an Electrum profile', cli: 'bench', args: benchServer('electrumx@http://127.0.0.1:DEAD'), names: () => ['electrumx@http://', 'esplora-rest'] },
  { name: 'server: Esplora REST unreachable', cli: 'bench', args: benchServer('esplora-rest@http://127.0.0.1:DEAD'), names: (c) => ['esplora-rest', `http://127.0.0.1:${c.dead}`, 'unreachable'] },
  { name: 'server: ws:// without a port', cli: 'bench', args: benchServer('electrumx@ws://127.0.0.1'), names: () => ['electrumx@ws://127.0.0.1', 'needs a port'] },
  { name: 'server: ws:// for the REST profile', cli: 'load', args: (c) => ['--server', 'esplora-rest@ws://127.0.0.1:1', '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['esplora-rest@ws://', 'HTTP'] },
  { name: 'server: --websocket without --lab', cli: 'bench', args: (c) => bench(c, '--websocket'), names: () => ['--websocket', '--lab', 'ws://'] },
  { name: 'server: WebSocket unreachable', cli: 'bench', args: benchServer('fulcrum@wss://127.0.0.1:DEAD'), names: (c) => ['fulcrum', `wss://127.0.0.1:${c.dead}`, 'unreachable'] },
  { name: 'server: dataset --count-via ws:// without a port', cli: 'dataset', args: (c) => ['addresses', '--count-via', 'ws://127.0.0.1', walletScript(1).address, '--out', path.join(c.dir, 'o.jsonl')], names: () => ['--count-via', 'ws://127.0.0.1', 'needs a port'] },

  // resource sampling and sweeps
  { name: 'bench: --server-pid not a process id', cli: 'bench', args: (c) => bench(c, '--server-pid', 'x=abc'), names: () => ['--server-pid', 'x=abc'] },
  { name: 'bench: --metrics not an http URL', cli: 'bench', args: (c) => bench(c, '--metrics', 'x=ftp://h/m'), names: () => ['--metrics', 'ftp://h/m'] },
  { name: 'bench: --server-datadir missing', cli: 'bench', args: (c) => bench(c, '--server-datadir', `x=${path.join(c.dir, 'nope')}`), names: (c) => ['--server-datadir', path.join(c.dir, 'nope')] },
  { name: 'bench: --sample-every 0', cli: 'bench', args: (c) => bench(c, '--sample-every', '0'), names: () => ['--sample-every', '0'] },
  { name: 'bench: --param without values', cli: 'bench', args: (c) => bench(c, '--param', 'db_mem'), names: () => ['--param', 'db_mem'] },
  {
    name: 'server: unreachable, --db in directories that do not exist yet',
    cli: 'bench',
    args: (c) => bench(c, '--db', path.join(c.dir, 'new', 'deeper', 'r.sqlite')),
    names: (c) => [`127.0.0.1:${c.dead}`, 'unreachable'],
  },
  { name: 'server: --host that is not a host', cli: 'bench', args: (c) => ['--server', 'electrumx', '--host', 'no such host', '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--host', 'no such host'] },

  // dataset build / filter / stats options
  { name: 'build: --rpc that is not a URL', cli: 'dataset', args: (c) => ['build', ...build(c, { rpc: 'notaurl' })], names: () => ['--rpc', 'notaurl'] },
  { name: 'build: unreachable node', cli: 'dataset', args: (c) => ['build', ...build(c)], names: (c) => [`http://127.0.0.1:${c.dead}`, 'unreachable'] },
  {
    name: 'build: unreachable node, --out in a directory that does not exist yet',
    cli: 'dataset',
    args: (c) => ['build', ...build(c, { out: path.join(c.dir, 'new', 'o.jsonl') })],
    names: (c) => [`http://127.0.0.1:${c.dead}`],
  },
  { name: 'build: --from abc', cli: 'dataset', args: (c) => ['build', ...build(c, { from: 'abc' })], names: () => ['--from', 'abc'] },
  { name: 'build: --from above --to', cli: 'dataset', args: (c) => ['build', ...build(c, { from: '20', to: '10' })], names: () => ['--from 20', '--to 10'] },
  { name: 'build: --count-via garbage', cli: 'dataset', args: (c) => ['build', ...build(c, { 'count-via': 'nope' })], names: () => ['--count-via', 'nope'] },
  { name: 'build: --rpc-cookie missing', cli: 'dataset', args: (c) => ['build', ...build(c, { 'rpc-cookie': c.fx('missing.cookie') })], names: (c) => ['--rpc-cookie', c.fx('missing.cookie')] },
  { name: 'filter: --types p2xx', cli: 'dataset', args: (c) => ['filter', '--in', c.fx('good.jsonl'), '--out', path.join(c.dir, 'f.jsonl'), '--types', 'p2xx'], names: () => ['--types', 'p2xx'] },

  // report
  { name: 'report: --db that does not exist', cli: 'report', args: (c) => ['--db', path.join(c.dir, 'none.sqlite'), '--out', path.join(c.dir, 'rep')], names: (c) => ['--db', path.join(c.dir, 'none.sqlite')] },
  { name: 'report: --db that is a dataset', cli: 'report', args: (c) => ['--db', c.fx('good.jsonl'), '--out', path.join(c.dir, 'rep')], names: (c) => ['--db', c.fx('good.jsonl')] },
  { name: 'report: no --out, missing --db (nothing in the cwd either)', cli: 'report', args: (c) => ['--db', path.join(c.dir, 'none.sqlite')], names: () => ['none.sqlite'] },

  // wallet workloads
  { name: 'wallets: unknown --workload', cli: 'bench', args: (c) => wallets(c).map((t) => (t === 'electrum' ? 'frobnicate' : t)), names: () => ['--workload', 'frobnicate'] },
  { name: 'wallets: --workload without --wallets', cli: 'bench', args: (c) => wallets(c).filter((t, i, all) => t !== '--wallets' && all[i - 1] !== '--wallets'), names: () => ['--wallets'] },
  { name: 'wallets: --wallets without --workload', cli: 'bench', args: (c) => [...bench(c), '--wallets', c.fx('wallets.jsonl')], names: () => ['--wallets', '--workload'] },
  { name: 'wallets: a line without chains', cli: 'bench', args: (c) => wallets(c, 'wallets-no-chains.jsonl'), names: (c) => [c.fx('wallets-no-chains.jsonl') + ':2', '"chains"'] },
  { name: 'wallets: the same wallet twice', cli: 'bench', args: (c) => wallets(c, 'wallets-twice.jsonl'), names: (c) => [c.fx('wallets-twice.jsonl') + ':2', 'line 1'] },
  // --abuse: refused off loopback and the lab before any connection (192.0.2.1 is TEST-NET-1: nothing answers there), and its own options.
  { name: 'abuse: a server off loopback without --i-operate-this-server', cli: 'load', args: (c) => [...walletLoad(c, '--rate', '1', '--duration', '40s', '--abuse', 'idle-connections')].map((t) => t.replace(`127.0.0.1:${c.dead}`, '192.0.2.1:50001')), names: () => ['--abuse idle-connections', '192.0.2.1', '--i-operate-this-server'] },
  { name: 'abuse: no such profile', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '40s', '--abuse', 'ddos'), names: () => ['--abuse ddos', 'no abuse profile "ddos"'] },
  { name: 'abuse: a profile named like an inherited member', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '40s', '--abuse', 'constructor'), names: () => ['--abuse constructor', 'no abuse profile "constructor"'] },
  { name: 'abuse: a parameter named like an inherited member', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '40s', '--abuse', 'idle-connections:constructor=5'), names: () => ['--abuse idle-connections:constructor=5', 'no parameter "constructor"'] },
  { name: 'abuse: a parameter past its ceiling', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '40s', '--abuse', 'idle-connections:connections=100001'), names: () => ['idle-connections:connections=100001', 'from 1 to 100000'] },
  { name: 'abuse: a ws:// server', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '40s', '--abuse', 'idle-connections').map((t) => t.replace(`127.0.0.1:${c.dead}`, `ws://127.0.0.1:${c.silent}`)), names: (c) => ['--abuse idle-connections', `electrumx@ws://127.0.0.1:${c.silent}`, 'WebSocket'] },
  { name: 'abuse: --lab --websocket', cli: 'load', args: (c) => ['--lab', '--websocket', '--workload', 'electrum', '--db', path.join(c.dir, 'r.sqlite'), '--rate', '1', '--duration', '40s', '--abuse', 'subscription-flood'], names: () => ['--abuse subscription-flood', '--websocket', 'WebSocket'] },
  { name: "abuse: its connections beyond the open-file limit", cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '40s', ...abusePastFileLimit()), names: () => ['--abuse idle-connections:connections=', 'open files', 'limit'] },
  { name: 'abuse: without arriving wallets', cli: 'load', args: (c) => walletLoad(c, '--hold', '1', '--abuse', 'subscription-flood'), names: () => ['--abuse', 'arriving wallets'] },
  { name: 'abuse: no after phase inside --duration', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--duration', '30s', '--abuse', 'oversized-batch', '--abuse-at', '10s', '--abuse-for', '20s'), names: () => ['--abuse-at 10s', '--abuse-for 20s', '--duration (30 s)'] },
  { name: 'wallets: more used scripts than listed', cli: 'load', args: (c) => [...walletLoad(c, '--hold', '1')].map((t) => (t.endsWith('wallets.jsonl') ? c.fx('wallets-overused.jsonl') : t)), names: (c) => [c.fx('wallets-overused.jsonl') + ':2', 'usedScripts.receive'] },
  // a gap short of the workload's scan: refused where the file is read, before any server is asked
  // (against a server answering null, the sync once ran off the file's end in a callback: a stack, exit 1)
  { name: 'wallets: bench, a gap too small for the electrum workload', cli: 'bench', args: (c) => wallets(c, 'wallets-gap-1.jsonl').map((t) => t.replace(`:${c.dead}`, `:${c.nullOnRegtest}`)), names: (c) => [c.fx('wallets-gap-1.jsonl') + ':2', 'gap 1', 'electrum workload', 'asks for 21', '--gap 20'] },
  {
    name: 'wallets: load, a gap too small for the bdk workload',
    cli: 'load',
    args: (c) => walletLoad(c, '--rate', '1').map((t) => (t.endsWith('wallets.jsonl') ? c.fx('wallets-gap-20.jsonl') : t === 'electrum' ? 'bdk' : t.replace(`:${c.dead}`, `:${c.nullOnRegtest}`))),
    names: (c) => [c.fx('wallets-gap-20.jsonl') + ':2', 'gap 20', 'bdk workload', 'asks for 30', '--gap 29'],
  },
  { name: 'wallets: no such --wallets file', cli: 'bench', args: (c) => wallets(c, 'missing.jsonl'), names: (c) => ['--wallets', c.fx('missing.jsonl')] },
  { name: 'wallets: --dataset with --workload', cli: 'bench', args: (c) => wallets(c, 'wallets.jsonl', '--dataset', c.fx('good.jsonl')), names: () => ['--dataset'] },
  { name: 'wallets: unreachable server', cli: 'bench', args: (c) => wallets(c), names: (c) => ['electrumx', `127.0.0.1:${c.dead}`] },
  { name: 'wallets: --hold without --workload', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--rate', '5', '--hold', '3', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--hold', '--workload'] },
  { name: 'wallets: --notify without --hold', cli: 'load', args: (c) => walletLoad(c, '--rate', '1', '--notify'), names: () => ['--notify', '--hold'] },
  { name: 'wallets: --notify with a workload that never subscribes', cli: 'load', args: (c) => walletLoad(c, '--hold', '2', '--notify').map((t) => (t === 'electrum' ? 'bdk' : t)), names: () => ['--notify', 'bdk'] },
  { name: 'wallets: --slo-notify without --find-max', cli: 'load', args: (c) => walletLoad(c, '--hold', '2', '--slo-notify', 'p99<5s'), names: () => ['--slo-notify', '--find-max'] },
  { name: 'wallets: --slo-notify without --hold to start from', cli: 'load', args: (c) => walletLoad(c, '--find-max', '--slo-notify', 'p99<5s'), names: () => ['--slo-notify', '--hold'] },
  { name: 'wallets: --max-hold below --hold', cli: 'load', args: (c) => walletLoad(c, '--hold', '20', '--find-max', '--slo-notify', 'p99<5s', '--max-hold', '10'), names: () => ['--max-hold', '10'] },
  { name: 'wallets: --slo-notify that does not parse', cli: 'load', args: (c) => walletLoad(c, '--hold', '2', '--find-max', '--slo-notify', 'soon'), names: () => ['--slo-notify', 'soon'] },
  { name: 'wallets: --find-max --slo naming what a wallet load does not measure', cli: 'load', args: (c) => walletLoad(c, '--find-max', '--slo', 'balance p99<2s'), names: () => ['--slo', 'balance', 'sync'] },
  { name: 'load: --find-max --slo naming a unit of a request load', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--find-max', '--slo', 'sync p99<2s', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--slo', 'sync'] },
  { name: 'wallets: --find-max with an arrival rate', cli: 'load', args: (c) => walletLoad(c, '--find-max', '--slo', 'sync p99<2s', '--rate', '3'), names: () => ['--find-max', '--rate'] },
  { name: 'wallets: --shard without --coordinator', cli: 'load', args: (c) => walletLoad(c, '--hold', '2', '--shard', '1/2'), names: () => ['--shard', '--coordinator'] },
  { name: 'wallets: --coordinator with fewer held wallets than shards', cli: 'load', args: (c) => walletLoad(c, '--hold', '2', '--shard', '1/3', '--coordinator', '127.0.0.1:7450'), names: () => ['--hold 2', '3 shards'] },
  { name: 'wallets: --natural-wait that is not a duration', cli: 'load', args: (c) => walletLoad(c, '--hold', '2', '--notify', '--natural-wait', 'soon'), names: () => ['--natural-wait', 'soon'] },
  ...interleaveCases(),
  { name: 'load: --cpu naming a CPU this machine does not give us', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--rate', '5', '--cpu', '0,999', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--cpu 0,999', 'CPU 999'] },
  { name: 'wallets: --cpu that is not a CPU list', cli: 'load', args: (c) => walletLoad(c, '--hold', '2', '--cpu', 'fast'), names: () => ['--cpu fast'] },
  { name: 'wallets: --hold beyond the open-file limit', cli: 'load', args: (c) => walletLoad(c, '--hold', '100000000'), names: () => ['--hold 100000000', 'limit'] },
  { name: 'wallets: dataset wallets --size backwards', cli: 'dataset', args: (c) => ['wallets', '--in', c.fx('good.jsonl'), '--size', '9..3', '--out', path.join(c.dir, 'w.jsonl')], names: () => ['--size', '9..3'] },
  {
    name: 'wallets: dataset wallets onto an existing --out',
    cli: 'dataset',
    args: (c) => ['wallets', '--in', c.fx('good.jsonl'), '--size', '1..10', '--out', path.join(c.dir, 'w.jsonl')],
    names: (c) => ['--out', path.join(c.dir, 'w.jsonl')],
    setup: (dir) => fs.writeFileSync(path.join(dir, 'w.jsonl'), 'mine\n'),
  },
  {
    name: 'compare: databases that do not exist',
    cli: 'report',
    args: (c) => ['compare', '--db', path.join(c.dir, 'a.sqlite'), '--db', path.join(c.dir, 'b.sqlite'), '--out', path.join(c.dir, 'cmp')],
    names: (c) => [path.join(c.dir, 'a.sqlite')],
  },

  // output paths that cannot be claimed: refused at once (Node's recursive mkdir spins forever under /proc)
  { name: 'paths: report --out under /proc', cli: 'report', args: (c) => ['--db', path.join(c.dir, 'none.sqlite'), '--out', '/proc/eb-rep'], names: () => ['--out', '/proc/eb-rep'] },
  { name: 'paths: bench --db under /proc', cli: 'bench', args: (c) => bench(c, '--db', '/proc/eb-nodir/x.sqlite'), names: () => ['--db', '/proc/eb-nodir'] },
  { name: 'paths: dataset filter --out under /proc', cli: 'dataset', args: (c) => ['filter', '--in', c.fx('good.jsonl'), '--out', '/proc/eb-nodir/f.jsonl'], names: () => ['--out', '/proc/eb-nodir'] },
  { name: 'paths: dataset build --out under /proc', cli: 'dataset', args: (c) => ['build', ...build(c, { out: '/proc/eb-nodir/o.jsonl' })], names: () => ['--out', '/proc/eb-nodir'] },
  { name: 'paths: dataset wallets --out under /proc', cli: 'dataset', args: (c) => ['wallets', '--in', c.fx('good.jsonl'), '--size', '1..10', '--out', '/proc/eb-nodir/w.jsonl'], names: () => ['--out', '/proc/eb-nodir'] },
  { name: 'paths: load --summary-export under /proc', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite'), '--summary-export', '/proc/eb-nodir/s.json'], names: () => ['--summary-export', '/proc/eb-nodir'] },
  { name: 'paths: load --db under /proc', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', '/proc/eb-nodir/l.sqlite'], names: () => ['--db', '/proc/eb-nodir'] },
  { name: 'paths: load merge --db under /proc', cli: 'load', args: (c) => ['merge', c.fx('good.jsonl'), '--db', '/proc/eb-nodir/m.sqlite'], names: () => ['--db', '/proc/eb-nodir'] },
  { name: 'paths: load hlog --out under /proc', cli: 'load', args: (c) => ['hlog', '--db', path.join(c.dir, 'none.sqlite'), '--out', '/proc/eb-nodir/x.hlog'], names: () => ['--out', '/proc/eb-nodir'] },
  { name: 'paths: report compare --out under /proc', cli: 'report', args: (c) => ['compare', '--db', path.join(c.dir, 'a.sqlite'), '--db', path.join(c.dir, 'b.sqlite'), '--out', '/proc/eb-cmp'], names: () => ['--out', '/proc/eb-cmp'] },
  { name: 'paths: bench --db ""', cli: 'bench', args: (c) => bench(c, '--db', ''), names: () => ['--db', '""'] },
  { name: 'paths: load --db ""', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', ''], names: () => ['--db', '""'] },
  { name: 'paths: load --summary-export ""', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite'), '--summary-export', ''], names: () => ['--summary-export'] },
  { name: 'paths: bench --db in a file that is not a directory', cli: 'bench', setup: (dir) => fs.writeFileSync(path.join(dir, 'plain'), 'x'), args: (c) => bench(c, '--db', path.join(c.dir, 'plain', 'r.sqlite')), names: (c) => ['--db', path.join(c.dir, 'plain')] },
  {
    name: 'paths: report --out onto a folder that holds files, without --force',
    cli: 'report',
    setup: (dir) => {
      fs.mkdirSync(path.join(dir, 'rep'));
      fs.writeFileSync(path.join(dir, 'rep', 'index.html'), 'an earlier report\n');
    },
    args: (c) => ['--db', path.join(c.dir, 'none.sqlite'), '--out', path.join(c.dir, 'rep')],
    names: (c) => ['--out', path.join(c.dir, 'rep'), '--force'],
  },
  {
    name: 'paths: report compare --out onto an earlier compare.md, without --force',
    cli: 'report',
    setup: (dir) => fs.writeFileSync(path.join(dir, 'compare.md'), 'an earlier comparison\n'),
    args: (c) => ['compare', '--db', path.join(c.dir, 'a.sqlite'), '--db', path.join(c.dir, 'b.sqlite'), '--out', c.dir],
    names: (c) => ['--out', c.dir, 'compare.md', '--force'],
  },

  // two outputs on one file, or an output on an input: refused before any work, nothing changed
  { name: 'paths: load --summary-export onto --db', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite'), '--summary-export', path.join(c.dir, 'r.sqlite')], names: (c) => ['--summary-export', '--db', path.join(c.dir, 'r.sqlite'), 'same file'] },
  { name: 'paths: bench --out json= onto --db', cli: 'bench', args: (c) => bench(c, '--out', `json=${path.join(c.dir, 'r.sqlite')}`), names: (c) => ['--out json', '--db', path.join(c.dir, 'r.sqlite'), 'same file'] },
  { name: 'paths: load, two --out json= on one file', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite'), '--out', `json=${path.join(c.dir, 'o.json')}`, '--out', `json=${c.dir}/./o.json`], names: (c) => ['--out json', path.join(c.dir, 'o.json'), 'same file'] },
  {
    name: 'paths: load --out json= onto its --dataset',
    cli: 'load',
    setup: (dir) => fs.copyFileSync(fx('good.jsonl'), path.join(dir, 'd.jsonl')),
    args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', path.join(c.dir, 'd.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite'), '--out', `json=${path.join(c.dir, 'd.jsonl')}`],
    names: (c) => ['--out json', '--dataset', path.join(c.dir, 'd.jsonl'), 'input'],
  },
  {
    name: 'paths: bench --dashboard-export onto its --config',
    cli: 'bench',
    setup: (dir) => fs.writeFileSync(path.join(dir, 'c.json'), JSON.stringify({ passes: 2 })),
    args: (c) => bench(c, '--config', path.join(c.dir, 'c.json'), '--dashboard-export', path.join(c.dir, 'c.json')),
    names: (c) => ['--dashboard-export', '--config', path.join(c.dir, 'c.json'), 'input'],
  },
  { name: 'paths: report compare of one database with itself', cli: 'report', setup: (dir) => fs.writeFileSync(path.join(dir, 'a.sqlite'), ''), args: (c) => ['compare', '--db', path.join(c.dir, 'a.sqlite'), '--db', `${c.dir}/./a.sqlite`], names: (c) => ['--db', path.join(c.dir, 'a.sqlite'), 'one database'] },

  // --strict-limits: a plan over a server's known limit refused before any connection or file
  {
    name: "doctor: load over Fulcrum's connections per source address, --strict-limits",
    cli: 'load',
    args: (c) => ['--server', `fulcrum@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--connections', '20', '--source-addresses', '127.0.0.2', '--strict-limits', '--db', path.join(c.dir, 'r.sqlite')],
    names: () => ['--strict-limits', '20 connections from 127.0.0.2', 'max_clients_per_ip', '12 connections per source address', '--source-addresses 127.0.0.2-127.0.0.3'],
  },
  {
    name: 'doctor: load --workload holding 13 wallets on a distant Fulcrum, --strict-limits',
    cli: 'load',
    // A documentation address (TEST-NET-1): the refusal comes before anything would reach it.
    args: (c) => walletLoad(c, '--hold', '13', '--strict-limits').map((t) => (t.startsWith('electrumx@') ? 'fulcrum@192.0.2.1:50001' : t)),
    names: () => ['--strict-limits', "13 connections from this machine's address", '--hold 13', 'max_clients_per_ip'],
  },
  { name: 'doctor: bench --strict-limits without --workload', cli: 'bench', args: (c) => bench(c, '--strict-limits'), names: () => ['--strict-limits', '--workload'] },

  // a database that is not ours: refused before any work, left byte for byte
  { name: "db: bench --db another program's SQLite file", cli: 'bench', setup: foreignDb('theirs.sqlite'), args: (c) => bench(c, '--db', path.join(c.dir, 'theirs.sqlite')), names: (c) => ['--db', path.join(c.dir, 'theirs.sqlite'), 'another program'] },
  { name: "db: bench --resume on another program's SQLite file", cli: 'bench', setup: foreignDb('theirs.sqlite'), args: (c) => ['--resume', '1', '--db', path.join(c.dir, 'theirs.sqlite')], names: (c) => ['--db', path.join(c.dir, 'theirs.sqlite'), 'another program'] },
  { name: "db: load --db another program's SQLite file (WAL)", cli: 'load', setup: foreignDb('theirs.sqlite', true), args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'theirs.sqlite')], names: (c) => ['--db', path.join(c.dir, 'theirs.sqlite')] },
  { name: "db: load merge --db another program's SQLite file", cli: 'load', setup: foreignDb('theirs.sqlite'), args: (c) => ['merge', c.fx('good.jsonl'), '--db', path.join(c.dir, 'theirs.sqlite')], names: (c) => ['--db', path.join(c.dir, 'theirs.sqlite')] },
  { name: 'db: load --db a text file', cli: 'load', setup: (dir) => fs.writeFileSync(path.join(dir, 'notes.sqlite'), 'my notes\n'), args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'notes.sqlite')], names: (c) => ['--db', path.join(c.dir, 'notes.sqlite')] },
  { name: "db: wallet bench --db another program's SQLite file", cli: 'bench', setup: foreignDb('theirs.sqlite'), args: (c) => wallets(c).map((t) => (t.endsWith('r.sqlite') ? path.join(c.dir, 'theirs.sqlite') : t)), names: (c) => ['--db', path.join(c.dir, 'theirs.sqlite')] },
  { name: "db: report --db another program's SQLite file (WAL), nothing left beside it", cli: 'report', setup: foreignDb('theirs.sqlite', true), args: (c) => ['--db', path.join(c.dir, 'theirs.sqlite'), '--out', path.join(c.dir, 'rep')], names: (c) => ['--db', path.join(c.dir, 'theirs.sqlite')] },

  // numbers: quoted as typed (yargs makes "abc" NaN), and no longer than a timer can wait
  { name: 'numbers: bench --passes abc', cli: 'bench', args: (c) => bench(c, '--passes', 'abc'), names: () => ['--passes', '"abc"'] },
  { name: 'numbers: bench --warmup=x', cli: 'bench', args: (c) => bench(c, '--warmup=x'), names: () => ['--warmup', '"x"'] },
  { name: 'numbers: bench --concurrency Infinity', cli: 'bench', args: (c) => bench(c, '--concurrency', 'Infinity'), names: () => ['--concurrency', '"Infinity"'] },
  { name: 'numbers: bench --timeout 99999999 (beyond a timer)', cli: 'bench', args: (c) => bench(c, '--timeout', '99999999'), names: () => ['--timeout 99999999', 'timer'] },
  { name: 'numbers: bench --max-line-bytes lots', cli: 'bench', args: (c) => bench(c, '--max-line-bytes', 'lots'), names: () => ['--max-line-bytes', '"lots"'] },
  { name: 'numbers: load --rate xyz', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', 'xyz', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--rate', '"xyz"'] },
  { name: 'numbers: load --timeout 99999999 (beyond a timer)', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--timeout', '99999999', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--timeout 99999999', 'timer'] },
  { name: 'numbers: load --duration 999999h (beyond a timer)', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--duration', '999999h', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--duration 999999h', 'timer'] },
  { name: 'numbers: load --stages longer than a timer', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--stages', '1m:10,999999h:100', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--stages 1m:10,999999h:100', 'timer'] },
  { name: 'empty: bench --ca ""', cli: 'bench', args: (c) => bench(c, '--ca', ''), names: () => ['--ca', '""'] },
  { name: 'empty: bench --dataset at the end with no value', cli: 'bench', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--db', path.join(c.dir, 'r.sqlite'), '--dataset'], names: () => ['--dataset'] },
  { name: 'empty: load --mix ""', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--mix', '', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--mix', '""'] },
  { name: 'empty: load hlog --db ""', cli: 'load', args: (c) => ['hlog', '--db', '', '--out', path.join(c.dir, 'x.hlog')], names: () => ['--db', '""'] },
  { name: 'numbers: load --connections 8x', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--connections', '8x', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--connections', '"8x"'] },
  { name: 'numbers: load --vus 1e400', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--vus', '1e400', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--vus', '"1e400"'] },
  { name: 'numbers: load --start-at tomorrow', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--shard', '1/2', '--start-at', 'tomorrow', '--db', path.join(c.dir, 'r.sqlite')], names: () => ['--start-at', '"tomorrow"'] },
  { name: 'numbers: load hlog --run two', cli: 'load', args: (c) => ['hlog', '--db', path.join(c.dir, 'none.sqlite'), '--run', 'two', '--out', path.join(c.dir, 'x.hlog')], names: () => ['--run', '"two"'] },
  { name: 'numbers: wallet load --timeout 99999999 (beyond a timer)', cli: 'load', args: (c) => walletLoad(c, '--hold', '1', '--timeout', '99999999'), names: () => ['--timeout 99999999', 'timer'] },
  { name: 'numbers: wallet load --notify-wait 999999h (beyond a timer)', cli: 'load', args: (c) => walletLoad(c, '--hold', '1', '--notify', '--notify-wait', '999999h'), names: () => ['--notify-wait 999999h', 'timer'] },
  { name: 'numbers: wallet load --hold many', cli: 'load', args: (c) => walletLoad(c, '--hold', 'many'), names: () => ['--hold', '"many"'] },
  { name: 'numbers: wallet bench --timeout 99999999 (beyond a timer)', cli: 'bench', args: (c) => wallets(c, 'wallets.jsonl', '--timeout', '99999999'), names: () => ['--timeout 99999999', 'timer'] },
  { name: 'numbers: dataset wallets --gap lots', cli: 'dataset', args: (c) => ['wallets', '--in', c.fx('good.jsonl'), '--out', path.join(c.dir, 'w.jsonl'), '--gap', 'lots'], names: () => ['--gap', '"lots"'] },
  { name: 'numbers: dataset build --count-timeout 99999999 (beyond a timer)', cli: 'dataset', args: (c) => ['build', ...build(c, { 'count-timeout': '99999999' })], names: () => ['--count-timeout', '99999999'] },
  { name: 'numbers: index-bench --repeat abc', cli: 'index-bench', args: (c) => ['--repeat', 'abc', '--db', path.join(c.dir, 'i.sqlite')], names: () => ['--repeat', '"abc"'] },
  { name: 'paths: index-bench --db under /proc', cli: 'index-bench', args: () => ['--db', '/proc/eb-nodir/i.sqlite'], names: () => ['--db', '/proc/eb-nodir'] },
  // the lab ends through the same handler as every command: its refusals are one line, before anything starts
  { name: 'lab: mine 0 blocks', cli: 'lab', args: () => ['mine', '0'], names: () => ['mine', 'got 0'] },
  { name: 'lab: up --with a version that is not SERVER@VERSION', cli: 'lab', args: () => ['up', '--with', 'electrs@'], names: () => ['--with', '"electrs@"'] },
  // limits pushes servers past their limits: one off this machine is refused before any connection.
  { name: 'limits: a server off this machine without --i-operate-this-server', cli: 'limits', args: (c) => ['--server', 'electrumx@192.0.2.1:50001', '--db', path.join(c.dir, 'l.sqlite')], names: () => ['electrumx (192.0.2.1)', '--i-operate-this-server'] },
  { name: 'limits: loopback --source-addresses toward a server off this machine', cli: 'limits', args: (c) => ['--server', 'electrumx@192.0.2.1:50001', '--i-operate-this-server', '--source-addresses', '127.0.0.2', '--db', path.join(c.dir, 'l.sqlite')], names: () => ['--source-addresses'] },
  { name: 'limits: an unknown limit', cli: 'limits', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--limits', 'batch-size,nope', '--db', path.join(c.dir, 'l.sqlite')], names: () => ['--limits', 'nope'] },
  { name: 'limits: --max-batch 0', cli: 'limits', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--max-batch', '0', '--db', path.join(c.dir, 'l.sqlite')], names: () => ['--max-batch', 'got 0'] },
  { name: 'limits: history sizes without a dataset', cli: 'limits', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--limits', 'history-size', '--db', path.join(c.dir, 'l.sqlite')], names: () => ['history-size', '--dataset'] },
  { name: 'limits: an unreachable server', cli: 'limits', args: (c) => ['--server', `electrumx@127.0.0.1:${c.dead}`, '--limits', 'batch-size', '--db', path.join(c.dir, 'l.sqlite')], names: (c) => [`127.0.0.1:${c.dead}`] },

  // servers that connect and then misbehave: said what they did, in one line, not the pool's internals
  { name: 'server: bench, connects and never answers', cli: 'bench', args: (c) => ['--no-progress', '--server', `electrumx@127.0.0.1:${c.silent}`, '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite'), '--timeout', '1'], names: (c) => [`127.0.0.1:${c.silent}`, 'connected, but did not answer server.version within 1 s'] },
  { name: 'server: bench, answers without an end of line', cli: 'bench', args: (c) => ['--no-progress', '--server', `electrumx@127.0.0.1:${c.noEol}`, '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite'), '--timeout', '1'], names: (c) => [`127.0.0.1:${c.noEol}`, /sent \d+ bytes and no end of line within 1 s/] },
  { name: 'server: load, drips bytes', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.drip}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite'), '--timeout', '1'], names: (c) => [`127.0.0.1:${c.drip}`, /sent \d+ bytes and no end of line within 1 s/] },
  { name: 'server: load, connects and never answers', cli: 'load', args: (c) => ['--server', `fulcrum@127.0.0.1:${c.silent}`, '--dataset', c.fx('good.jsonl'), '--vus', '2', '--db', path.join(c.dir, 'r.sqlite'), '--timeout', '1'], names: (c) => [`127.0.0.1:${c.silent}`, 'did not answer server.version'] },
  { name: 'server: wallet bench, connects and never answers', cli: 'bench', args: (c) => [...wallets(c, 'wallets.jsonl', '--timeout', '1')].map((t) => t.replace(`:${c.dead}`, `:${c.silent}`)), names: (c) => [`127.0.0.1:${c.silent}`, 'did not answer server.version'] },
  { name: 'server: wallet load, answers without an end of line', cli: 'load', args: (c) => walletLoad(c, '--hold', '1', '--timeout', '1').map((t) => t.replace(`:${c.dead}`, `:${c.noEol}`)), names: (c) => [`127.0.0.1:${c.noEol}`, 'no end of line'] },
  // a server's bad answer is the server's fault: named with what it answered, never a TypeError of ours
  { name: 'server: dataset addresses, the tip answered null', cli: 'dataset', args: (c) => ['addresses', '--count-via', `electrum://127.0.0.1:${c.nullOnRegtest}`, walletScript(1).address, '--out', path.join(c.dir, 'o.jsonl')], names: (c) => [`127.0.0.1:${c.nullOnRegtest}`, 'answered blockchain.headers.subscribe with null'] },
  { name: "server: dataset addresses, block 0's header answered null", cli: 'dataset', args: (c) => ['addresses', '--count-via', `electrum://127.0.0.1:${c.nulls}`, walletScript(1).address, '--out', path.join(c.dir, 'o.jsonl')], names: (c) => [`127.0.0.1:${c.nulls}`, 'answered blockchain.block.header with null'] },
  { name: 'tls: --ca that is not PEM', cli: 'bench', args: (c) => bench(c, '--ca', c.fx('not-a-cert.pem')), names: (c) => ['--ca', c.fx('not-a-cert.pem')] },
  { name: 'tls: --ca whose certificate does not parse', cli: 'load', args: (c) => ['--server', `electrumx@ssl://127.0.0.1:${c.dead}`, '--dataset', c.fx('good.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite'), '--ca', c.fx('broken-cert.pem')], names: (c) => ['--ca', c.fx('broken-cert.pem')] },
  { name: 'tls: dataset --ca that is not PEM', cli: 'dataset', args: (c) => ['addresses', '--count-via', `electrums://127.0.0.1:${c.dead}`, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', '--out', path.join(c.dir, 'ca.jsonl'), '--ca', c.fx('not-a-cert.pem')], names: (c) => ['--ca', c.fx('not-a-cert.pem')] },
  { name: 'tls: --ca that does not exist', cli: 'bench', args: (c) => bench(c, '--ca', c.fx('missing.pem')), names: (c) => ['--ca', c.fx('missing.pem')] },

  // --param restarts a lab server: never one merely sharing a lab server's profile name
  { name: 'sweep: --param with a server given by host and port', cli: 'bench', args: (c) => ['--no-progress', '--server', `fulcrum@127.0.0.1:${c.silent}`, '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite'), '--param', 'db_mem=100,200'], names: (c) => ['--param', `fulcrum (tcp://127.0.0.1:${c.silent})`, 'not one the lab started'] },
  { name: 'sweep: --param with a labelled server given by --host and --port', cli: 'bench', args: (c) => ['--no-progress', '--server', 'electrumx', '--host', '127.0.0.1', '--port', String(c.silent), '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite'), '--param', 'CACHE_MB=100,200'], names: () => ['--param', 'not one the lab started'] },

  // a dataset of one chain against a server on another: refused before the first query
  { name: 'network: bench, regtest dataset, server on mainnet', cli: 'bench', args: (c) => ['--no-progress', '--server', `electrumx@127.0.0.1:${c.onMainnet}`, '--dataset', c.fx('good.jsonl'), '--db', path.join(c.dir, 'r.sqlite')], names: (c) => [`127.0.0.1:${c.onMainnet}`, 'is on mainnet', c.fx('good.jsonl'), 'regtest'] },
  { name: 'network: bench, mainnet dataset, server on regtest', cli: 'bench', args: (c) => ['--no-progress', '--server', `electrumx@127.0.0.1:${c.onRegtest}`, '--dataset', c.fx('mainnet.jsonl'), '--db', path.join(c.dir, 'r.sqlite')], names: (c) => [`127.0.0.1:${c.onRegtest}`, 'is on regtest', c.fx('mainnet.jsonl'), 'mainnet'] },
  { name: 'network: load, mainnet dataset, server on regtest', cli: 'load', args: (c) => ['--server', `electrumx@127.0.0.1:${c.onRegtest}`, '--dataset', c.fx('mainnet.jsonl'), '--rate', '1', '--db', path.join(c.dir, 'r.sqlite')], names: (c) => [`127.0.0.1:${c.onRegtest}`, 'is on regtest', c.fx('mainnet.jsonl')] },
  { name: 'network: wallet bench, regtest wallets, server on mainnet', cli: 'bench', args: (c) => wallets(c).map((t) => t.replace(`:${c.dead}`, `:${c.onMainnet}`)), names: (c) => [`127.0.0.1:${c.onMainnet}`, 'is on mainnet', '--wallets', c.fx('wallets.jsonl')] },
  { name: 'network: wallet load, regtest wallets, server on mainnet', cli: 'load', args: (c) => walletLoad(c, '--hold', '1').map((t) => t.replace(`:${c.dead}`, `:${c.onMainnet}`)), names: (c) => [`127.0.0.1:${c.onMainnet}`, 'is on mainnet', '--wallets'] },
];

interface Outcome {
  code: number | null;
  stderr: string;
  /** From the call to its exit code. */
  ms: number;
  before: string[];
  after: string[];
  args: string[];
  ctx: Ctx;
}

/** Everything under `dir` with a hash of each file's bytes, so any new or changed file, however deep, shows. */
function listing(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort().map((name) => {
    const full = path.join(dir, name);
    return fs.statSync(full).isDirectory() ? `${name}/` : `${name} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`;
  });
}

/**
 * The command in this process, in `cwd` (a default output path, e.g. results/, would land there,
 * and be seen). A command that returned but left something holding the event loop (its process
 * would hang) fails here, with what it left in place of its stderr.
 */
async function run(command: CommandName, args: string[], cwd: string): Promise<{ code: number | null; stderr: string; ms: number }> {
  try {
    return await cli(command, args, { cwd, env: { ELECTRUM_BENCH_RPC_USER: '', ELECTRUM_BENCH_RPC_PASSWORD: '' } });
  } catch (err) {
    return { code: null, stderr: String(err), ms: Infinity };
  }
}

const outcomes = new Map<string, Outcome>();
const misbehaving: Misbehaving[] = [];

beforeAll(async () => {
  fs.mkdirSync(fixtures);
  for (const [name, text] of Object.entries({ ...DATASETS, ...MANIFESTS, ...CONFIGS, ...WALLETS, ...CERTS })) fs.writeFileSync(fx(name), text);
  const dead = await deadPort();
  const [silent, noEol, drip, onMainnet, onRegtest, nullOnRegtest, nulls] = await Promise.all([
    startMisbehavingServer({ silent: true }),
    startMisbehavingServer({ noNewline: true }),
    startMisbehavingServer({ dripMs: 100 }),
    startMisbehavingServer({ genesisHeader: GENESIS_HEADER.mainnet }),
    startMisbehavingServer({ genesisHeader: GENESIS_HEADER.regtest }),
    startMisbehavingServer({ genesisHeader: GENESIS_HEADER.regtest, nullResults: true }),
    startMisbehavingServer({ nullResults: true }),
  ]);
  misbehaving.push(silent, noEol, drip, onMainnet, onRegtest, nullOnRegtest, nulls);
  // A command's first run loads what it loads lazily: that is not the time of the first case's error.
  const warm = path.join(tmp, 'warm-up');
  fs.mkdirSync(warm);
  for (const command of COMMAND_NAMES) await run(command, ['--help'], warm);
  for (const [i, c] of CASES.entries()) {
    const dir = path.join(tmp, `case-${i}`);
    fs.mkdirSync(dir);
    c.setup?.(dir);
    const ctx: Ctx = { fx, dir, dead, silent: silent.port, noEol: noEol.port, drip: drip.port, onMainnet: onMainnet.port, onRegtest: onRegtest.port, nullOnRegtest: nullOnRegtest.port, nulls: nulls.port };
    const before = listing(dir);
    const args = c.args(ctx);
    const r = await run(c.cli, args, dir);
    outcomes.set(c.name, { ...r, before, after: listing(dir), args, ctx });
  }
}, 240_000);

afterAll(async () => {
  await Promise.all(misbehaving.map((m) => m.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('the corpus has at least 60 cases over every command, each named once', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(60);
  expect(new Set(CASES.map((c) => c.cli))).toEqual(new Set(COMMAND_NAMES));
  expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
});

test.each(CASES.map((c) => [c.name, c] as const))('%s: one line naming the input, exit 2 within 5 s, no file left or changed, nothing left running', (_, c) => {
  const o = outcomes.get(c.name)!;
  const shown = `${c.cli} ${o.args.join(' ')}\n${o.stderr}`;
  const text = o.stderr.replace(/\n$/, '');
  expect({ shown, code: o.code }).toEqual({ shown, code: 2 });
  expect({ shown, within5s: o.ms < 5000 }).toEqual({ shown, within5s: true });
  expect({ shown, lines: text.split('\n').length }).toEqual({ shown, lines: 1 });
  expect(text).toMatch(/^electrum-bench: \S/);
  expect(text).not.toMatch(/internal error|\bat .+:\d+:\d+\)?$/);
  expect(text).not.toMatch(/\bNaN\b/);
  expect(text).not.toMatch(/ResourceRequest|generic-pool/);
  for (const name of c.names(o.ctx)) {
    if (typeof name === 'string') expect(text).toContain(name);
    else expect(text).toMatch(name);
  }
  expect(o.after).toEqual(o.before);
});

test('no command touched the fixtures', () => {
  expect(listing(fixtures).map((l) => l.split(' ')[0])).toEqual(Object.keys({ ...DATASETS, ...MANIFESTS, ...CONFIGS, ...WALLETS, ...CERTS }).sort());
});
