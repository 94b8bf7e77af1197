/**
 * Stopping a run the way scripts and CI do: a signal to `npm run`'s own pid, or to its whole
 * process group. npm passes SIGINT and SIGTERM to its child only, so every process between npm
 * and ours must be replaced by the next (exec), never sit in between and die alone. Each case:
 * npm ends within 2 s, no process of the tree is left (checked by pid), and the database is whole,
 * with the run marked interrupted; a stop while connecting says so and writes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { startMisbehavingServer, Misbehaving } from '../../support/misbehaving-server';
import { ResultsStore } from '../../../src/store/results';
import { computeStatistics } from '../../../src/store/statistics';
import { METHOD_NAMES } from '../../../src/core/methods';
import { writeSyntheticDataset } from '../../support/synthetic-lines';
import { until } from '../../support/until';
import { countIn } from '../../support/count-in';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let tmp: string;
let slow: Misbehaving;
let silent: Misbehaving;
let frozen: Misbehaving;
const started: ChildProcess[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-npm-signals-'));
  writeSyntheticDataset(path.join(tmp, 'd.jsonl'), 20, 'n');
  [slow, silent, frozen] = await Promise.all([startMisbehavingServer({ delayMs: 100 }), startMisbehavingServer({ silent: true }), startMisbehavingServer({ hangAfterHandshake: true })]);
});
afterAll(async () => {
  // Whatever a failed case left: its whole group (each npm was started as a group leader).
  for (const c of started) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await Promise.all([slow.close(), silent.close(), frozen.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

function npmRun(script: 'load' | 'bench' | 'report', args: string[], via: 'npm' | 'launcher' = 'npm'): { child: ChildProcess; stderr: () => string } {
  const [command, ...front] = via === 'npm' ? ['npm', 'run', '--silent', script, '--'] : [process.execPath, path.join(ROOT, 'bin', 'electrum-bench.js'), script];
  const child = spawn(command, [...front, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true, // a group of its own: the group signal reaches this tree only
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  started.push(child);
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return { child, stderr: () => err };
}

/** Every descendant of `pid`, from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\S+ \S+ Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'));
  } catch {
    return false;
  }
};

function finished(db: string, kind: 'load' | 'bench'): { status: string; integrity: string } {
  const c = new Database(db, { readonly: true });
  const run = c.prepare('SELECT status FROM runs WHERE kind = ? ORDER BY id DESC').get(kind) as { status: string };
  const integrity = c.pragma('integrity_check', { simple: true }) as string;
  c.close();
  return { status: run.status, integrity };
}

/** Sends the signal, then: npm gone within 2 s, and every process of its tree gone by pid. */
async function stopAndCheck(child: ChildProcess, signal: NodeJS.Signals, toGroup: boolean): Promise<void> {
  const tree = descendants(child.pid!);
  expect(tree.length).toBeGreaterThanOrEqual(1); // the command's node (under npm: tsx too)
  const exited = new Promise<number>((resolve) => child.on('exit', () => resolve(Date.now())));
  const t0 = Date.now();
  process.kill(toGroup ? -child.pid! : child.pid!, signal);
  expect((await exited) - t0).toBeLessThan(2000);
  await until('the tree to end', () => tree.every((p) => !alive(p)), 2000).catch(() => undefined);
  expect(tree.filter(alive)).toEqual([]);
}

test.each(['SIGTERM', 'SIGINT'] as const)('npm run bench, %s while running: all gone within 2 s, run interrupted, database whole', async (signal) => {
  const db = path.join(tmp, `bench-${signal}.sqlite`);
  const { child } = npmRun('bench', ['--no-progress', '--server', `generic@127.0.0.1:${slow.port}`, '--dataset', path.join(tmp, 'd.jsonl'), '--passes', '500', '--db', db]);
  await until('samples in the database', () => countIn(db, 'SELECT count(*) AS n FROM samples') >= 3);
  await stopAndCheck(child, signal, false);
  expect(finished(db, 'bench')).toEqual({ status: 'interrupted', integrity: 'ok' });
}, 60_000);

test.each([['bench', 'bench', ['--passes', '5']]] as const)('npm run %s, SIGTERM while the server is frozen (handshake done, no answers): all gone within 2 s, run interrupted', async (script, kind, extra) => {
  const db = path.join(tmp, `frozen-${script}.sqlite`);
  const { child } = npmRun(script, ['--no-progress', '--server', `generic@127.0.0.1:${frozen.port}`, '--dataset', path.join(tmp, 'd.jsonl'), '--timeout', '30', '--db', db, ...extra]);
  await until('the run in the database', () => countIn(db, `SELECT count(*) AS n FROM runs WHERE kind = '${kind}'`) >= 1);
  await new Promise((r) => setTimeout(r, 500)); // calls sent, none answered
  await stopAndCheck(child, 'SIGTERM', false);
  expect(finished(db, kind)).toEqual({ status: 'interrupted', integrity: 'ok' });
}, 60_000);

/** A bench run of `addresses` addresses on two servers, as the bench stores one: its report takes seconds to draw. */
function writeLargeBenchRun(db: string, addresses: number): void {
  const store = ResultsStore.open(db);
  const lines = Array.from({ length: addresses }, (_, i) => ({
    address: null,
    scripthash: i.toString(16).padStart(64, '0'),
    type: 'nonstandard' as const,
    txCount: 1 + (i % 997),
    utxoCount: 1 + (i % 331),
    balance: { confirmed: 1000 + i, unconfirmed: 0 },
  }));
  const { runId, serverIds } = store.createRun(
    { started_at: new Date().toISOString(), tool_version: 'test', git_commit: null, node_version: process.version, host_json: '{}', config_json: '{}', dataset_id: 'large', dataset_path: 'large.jsonl', dataset_hash: '0'.repeat(64), dataset_lines: addresses, passes: 1, warmup: 0, methods: METHOD_NAMES.join(','), call_order: 'address' },
    ['electrumx', 'fulcrum'].map((name, i) => ({ name, profile: name, url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null, banner: null, features_json: null })),
    lines,
  );
  store.setRun(runId);
  for (const serverId of serverIds) {
    for (const [addressIdx, l] of lines.entries()) {
      for (const method of METHOD_NAMES) {
        store.add({ serverId, pass: 0, warmup: false, addressIdx, method, atMs: addressIdx, latencyNs: BigInt(200_000 + l.txCount * 1000 + serverId * 50_000), responseBytes: 100, resultSize: l.txCount, status: 'ok', error: null, tipHeight: 1, mismatch: null });
      }
    }
  }
  store.flush();
  computeStatistics(store, runId);
  store.finishRun(runId, 'completed', {});
  store.close();
}

const REPORT_CASES = [
  ['npm', false, 'SIGTERM'],
  ['npm', false, 'SIGINT'],
  ['npm', true, 'SIGTERM'],
  ['launcher', false, 'SIGINT'],
  ['launcher', true, 'SIGTERM'],
] as const;

test.each(REPORT_CASES)('report through %s (to its group: %s), %s while the report is being written: all gone within 2 s, stopped by it (or found done, whole), the database as it was and nothing beside it', async (via, toGroup, signal) => {
  const dir = path.join(tmp, `report-${via}-${toGroup}-${signal}`);
  fs.mkdirSync(dir);
  const db = path.join(dir, 'large.sqlite');
  writeLargeBenchRun(db, 3000);
  const hash = () => createHash('sha256').update(fs.readFileSync(db)).digest('hex');
  const before = hash();
  const out = path.join(dir, 'report');
  const { child, stderr } = npmRun('report', ['--db', db, '--out', out], via);
  const code = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  // The folder is claimed right before the report is read and drawn.
  await until('the report to start', () => fs.existsSync(out));
  await stopAndCheck(child, signal, toGroup);
  // Stopped by it, through our handler: 128 + the signal, once the synchronous read or chart in hand is done,
  // the database already closed. Never by the signal itself or a SIGKILL (tsx's CLI, which npm
  // scripts no longer run through, killed a command that had not answered within ~60 ms). A
  // signal landing in the report's last synchronous stretch finds it done: then whole.
  const exit = await code;
  if (exit === 0) expect(fs.readdirSync(out)).toEqual(expect.arrayContaining(['index.html', 'summary.md', 'medians.csv']));
  else expect(exit).toBe(signal === 'SIGINT' ? 130 : 143);
  expect(stderr()).not.toMatch(/internal error/);
  expect(hash()).toBe(before);
  expect(fs.readdirSync(dir).sort()).toEqual(['large.sqlite', 'report']);
}, 60_000);

/**
 * Every way a stop reaches a load — npm's pid or its group, the launcher's pid or its group; SIGINT
 * or SIGTERM — in every state a run can be in: connecting to a server that never answers (its
 * database two directories down: neither is left), running, and sending to a server that answers
 * nothing after its handshake.
 */
const VIAS = [
  ['npm', false],
  ['npm', true],
  ['launcher', false],
  ['launcher', true],
] as const;
const STATES = ['connecting', 'running', 'frozen'] as const;
const MATRIX = VIAS.flatMap(([via, toGroup]) => STATES.flatMap((state) => (['SIGINT', 'SIGTERM'] as const).map((signal) => [via, toGroup, state, signal] as const)));

test.each(MATRIX)('load through %s (to its group: %s), %s, %s: all gone within 2 s, and what was measured is whole', async (via, toGroup, state, signal) => {
  const dir = path.join(tmp, `matrix-${via}-${toGroup}-${state}-${signal}`);
  const db = path.join(dir, 'sub', 'l.sqlite');
  const server = state === 'connecting' ? silent : state === 'running' ? slow : frozen;
  const { child, stderr } = npmRun('load', ['--no-progress', '--server', `generic@127.0.0.1:${server.port}`, '--dataset', path.join(tmp, 'd.jsonl'), '--rate', '5', '--duration', '60s', '--timeout', '30', '--db', db], via);
  if (state === 'connecting') {
    const connections = silent.connections;
    await until('the connection', () => silent.connections > connections);
  } else if (state === 'running') {
    await until('an interval in the database', () => countIn(db, 'SELECT count(*) AS n FROM load_intervals') >= 1);
  } else {
    await until('the run in the database', () => countIn(db, "SELECT count(*) AS n FROM runs WHERE kind = 'load'") >= 1);
    await new Promise((r) => setTimeout(r, 500)); // requests sent, none answered
  }
  await stopAndCheck(child, signal, toGroup);
  if (state === 'connecting') {
    expect(stderr()).toMatch(new RegExp(`^electrum-bench: ${signal} while connecting: stopped before the first request; nothing was written$`, 'm'));
    expect(fs.existsSync(dir)).toBe(false);
  } else {
    expect(finished(db, 'load')).toEqual({ status: 'interrupted', integrity: 'ok' });
  }
}, 60_000);
