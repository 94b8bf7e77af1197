/**
 * The bench runner's own behaviour, against deliberately misbehaving local servers (slow, hanging,
 * going away): concurrency per server, the call order recorded, stops within 2 s in every state,
 * samples written at least every second, outages recorded as errors, and resumed runs that record
 * their sessions, re-check the server's version and cannot be taken by two processes.
 * The calls these servers answer are JSON-RPC errors: what is measured here is the runner, not a
 * server, and an error is a sample like any other.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { BenchOptions, StoppedBeforeStart } from '../../../src/bench/runner';
import { BenchMeasure } from '../../../src/runs/kinds/bench';
import { ResultsStore } from '../../../src/store/results';
import { readDataset, LoadedDataset } from '../../../src/dataset/line';
import { startMisbehavingServer, Misbehaving, MisbehavingOptions } from '../../support/misbehaving-server';
import { writeSyntheticDataset } from '../../support/synthetic-lines';
import { isColdPass } from '../../../src/bench/cold-passes';

let tmp: string;
const servers: Misbehaving[] = [];
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-runner-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function server(o: MisbehavingOptions = {}): Promise<Misbehaving> {
  const s = await startMisbehavingServer(o);
  servers.push(s);
  return s;
}

function dataset(n: number): LoadedDataset {
  const file = path.join(tmp, 'addresses.jsonl');
  writeSyntheticDataset(file, n, 'address ', (i) => ({ txCount: i + 1, balance: { confirmed: 1000, unconfirmed: 0 } }));
  return readDataset(file);
}

function options(targets: Array<{ name: string; port: number }>, extra: Partial<BenchOptions> = {}): BenchOptions {
  return {
    servers: targets.map((t) => ({ name: t.name, profile: 'generic', host: '127.0.0.1', port: t.port, tls: false })),
    datasetPath: path.join(tmp, 'addresses.jsonl'),
    methods: ['balance', 'history', 'utxos'],
    passes: 2,
    warmup: 1,
    shuffle: false,
    order: 'address',
    seed: 'test',
    concurrency: 1,
    timeoutMs: 5000,
    maxLineBytes: 1 << 20,
    tlsInsecure: false,
    verify: false,
    ...extra,
  };
}

const dbFile = () => path.join(tmp, 'results.sqlite');

test('--concurrency N puts N calls in flight to each server, a slow one and a fast one alike', async () => {
  const fast = await server({ delayMs: 5 });
  const slow = await server({ delayMs: 50 });
  const store = ResultsStore.open(dbFile());
  const ds = dataset(40);
  const runner = new BenchMeasure(store, options([{ name: 'fast', port: fast.port }, { name: 'slow', port: slow.port }], { concurrency: 8, passes: 2 }));
  const result = await runner.run(ds);
  store.close();
  expect(result.status).toBe('completed');
  expect(result.samples).toBe(2 * 40 * 2 * 3);
  // Workers shared by both servers gave the fast one about 0.7 calls in flight and the slow one
  // about 7.3. Each server's own 8 workers keep both near 8 (less the generator's own time).
  expect(fast.meanInFlight()).toBeGreaterThan(2); // 5 ms answers: a busy machine's client time weighs
  expect(slow.meanInFlight()).toBeGreaterThan(6);
});

test('the call order is recorded with the run, and every planned call is made once', async () => {
  const s = await server({ delayMs: 0.1 });
  for (const order of ['address', 'method', 'shuffled'] as const) {
    const store = ResultsStore.open(dbFile());
    const result = await new BenchMeasure(store, options([{ name: 'a', port: s.port }], { order, passes: 2 })).run(dataset(10));
    const run = store.getRun(result.runId)!;
    expect(run.call_order).toBe(order);
    expect(JSON.parse(run.config_json).order).toBe(order);
    const n = store.db.prepare('SELECT count(*) AS n, count(DISTINCT pass || method || address_idx) AS d FROM samples WHERE run_id = ?').get(result.runId) as {
      n: number;
      d: number;
    };
    expect(n).toEqual({ n: 60, d: 60 });
    store.close();
  }
});

test('a stop while a handshake hangs ends within 2 s and writes no run', async () => {
  const s = await server({ silent: true });
  const store = ResultsStore.open(dbFile());
  const runner = new BenchMeasure(store, options([{ name: 'a', port: s.port }], { timeoutMs: 30_000 }));
  const running = runner.run(dataset(5));
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  runner.stop();
  await expect(running).rejects.toBeInstanceOf(StoppedBeforeStart);
  expect(Date.now() - t0).toBeLessThan(2000);
  expect(store.listRuns()).toHaveLength(0);
  store.close();
});

test('a stop while calls hang, and a stop during an outage, each end within 2 s with the run interrupted', async () => {
  for (const scenario of ['hanging calls', 'outage'] as const) {
    const s = await server(scenario === 'hanging calls' ? { hangAfterHandshake: true } : { delayMs: 2 });
    const store = ResultsStore.open(dbFile());
    const runner = new BenchMeasure(store, options([{ name: 'a', port: s.port }], { timeoutMs: 30_000, passes: 50 }));
    const running = runner.run(dataset(20));
    await new Promise((r) => setTimeout(r, 500));
    if (scenario === 'outage') await s.close();
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    runner.stop();
    const result = await running;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(result.status).toBe('interrupted');
    store.close();
  }
});

test('a server that goes away and comes back: the outage is recorded as errors at a bounded pace, and calls resume', async () => {
  const s = await server({ delayMs: 2 });
  const port = s.port;
  const store = ResultsStore.open(dbFile());
  const runner = new BenchMeasure(store, options([{ name: 'a', port }], { passes: 200, concurrency: 1 }));
  const running = runner.run(dataset(10));
  await new Promise((r) => setTimeout(r, 500));
  await s.close();
  await new Promise((r) => setTimeout(r, 2000));
  await server({ delayMs: 2, port });
  await new Promise((r) => setTimeout(r, 1500));
  runner.stop();
  const result = await running;
  const rows = store.db.prepare('SELECT status, count(*) AS n FROM samples WHERE run_id = ? GROUP BY status').all(result.runId) as Array<{ status: string; n: number }>;
  const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  // The outage shows as disconnects (about one per reconnect attempt: 100 ms doubling to 1 s),
  // neither dropped nor a burst of thousands; after it, the server answers again.
  expect(by.disconnect).toBeGreaterThanOrEqual(3);
  expect(by.disconnect).toBeLessThan(40);
  const last = store.db.prepare('SELECT status FROM samples WHERE run_id = ? ORDER BY at_ms DESC, id DESC LIMIT 1').get(result.runId) as { status: string };
  expect(last.status).toBe('server-error'); // the server's JSON-RPC error: it is back
  const pool = JSON.parse(store.getRun(result.runId)!.pool_json!).a;
  expect(pool.outages.length).toBeGreaterThanOrEqual(1);
  store.close();
});

test('--cold: before each cold pass, with nothing in flight, the servers are restarted and reached on fresh connections; each sample says its pass', async () => {
  const a = await server({ delayMs: 1 });
  const b = await server({ delayMs: 1 });
  const live = { a, b };
  const store = ResultsStore.open(dbFile());
  const lines = 6;
  // A warm-up, then cold, warm, cold, warm, cold; two calls in flight to each server.
  const opts = options([{ name: 'a', port: a.port }, { name: 'b', port: b.port }], { passes: 6, warmup: 1, concurrency: 2, cold: true });
  const perPass = lines * 2 * 3;
  let measured = 0;
  const restarts: number[] = [];
  // A real restart: each server closed (its connections with it) and a new one started on its port.
  const coldStart = {
    processes: new Map([
      ['a', 'a'],
      ['b', 'b'],
    ]),
    restart: async () => {
      restarts.push(measured);
      for (const name of ['a', 'b'] as const) {
        const port = live[name].port;
        await live[name].close();
        live[name] = await server({ delayMs: 1, port });
      }
    },
  };
  const measure = new BenchMeasure(store, opts, { coldStart });
  measure.runner.on('sample', () => measured++);
  const result = await measure.run(dataset(lines));
  expect(result.status).toBe('completed');
  // One restart before each cold pass, each once every call before it had ended.
  expect(restarts).toEqual([1, 3, 5].map((pass) => pass * perPass));
  // The last servers were reached on fresh connections, and no call failed for the restarts.
  expect(live.a.connections).toBeGreaterThan(0);
  expect(live.b.connections).toBeGreaterThan(0);
  const statuses = store.db.prepare('SELECT DISTINCT status FROM samples WHERE run_id = ?').all(result.runId) as Array<{ status: string }>;
  expect(statuses).toEqual([{ status: 'server-error' }]);
  const pool = JSON.parse(store.getRun(result.runId)!.pool_json!) as Record<string, { outages: unknown[]; created: number }>;
  expect(pool.a.outages).toEqual([]);
  // Connections of all four sets counted: at least one per set.
  expect(pool.a.created).toBeGreaterThanOrEqual(4);
  const marks = store.db.prepare('SELECT pass, min(cold) AS lo, max(cold) AS hi, count(*) AS n FROM samples WHERE run_id = ? GROUP BY pass ORDER BY pass').all(result.runId) as Array<{ pass: number; lo: number; hi: number; n: number }>;
  expect(marks).toEqual([0, 1, 2, 3, 4, 5].map((pass) => ({ pass, lo: +isColdPass(pass, 1), hi: +isColdPass(pass, 1), n: perPass })));
  expect(result.cold.map((c) => `${c.server}/${c.method}/${c.n}`)).toEqual(['a', 'b'].flatMap((s) => ['balance', 'history', 'utxos'].map((m) => `${s}/${m}/${3 * lines}`)));
  // The process serving each target is stored with it: the first touches are counted per process.
  const setups = store.db.prepare("SELECT name, json_extract(setup_json, '$.process') AS process FROM run_servers WHERE run_id = ? ORDER BY name").all(result.runId);
  expect(setups).toEqual([
    { name: 'a', process: 'a' },
    { name: 'b', process: 'b' },
  ]);
  store.close();
});

test('--cold: a stop while the servers restart ends within 2 s, the run interrupted', async () => {
  const a = await server({ delayMs: 1 });
  const store = ResultsStore.open(dbFile());
  let restarting: () => void = () => undefined;
  const started = new Promise<void>((r) => (restarting = r));
  // A restart that never ends (a server that does not come back).
  const coldStart = { processes: new Map([['a', 'a']]), restart: () => (restarting(), new Promise<void>(() => undefined)) };
  const measure = new BenchMeasure(store, options([{ name: 'a', port: a.port }], { passes: 3, warmup: 1, cold: true }), { coldStart });
  const running = measure.run(dataset(3));
  await started;
  const t0 = Date.now();
  measure.stop();
  const result = await running;
  expect(Date.now() - t0).toBeLessThan(2000);
  expect(result.status).toBe('interrupted');
  // The warm-up pass was measured whole; nothing after the stop.
  const { n } = store.db.prepare('SELECT count(*) AS n FROM samples WHERE run_id = ?').get(result.runId) as { n: number };
  expect(n).toBe(3 * 3);
  store.close();
});

test('samples reach the database within about a second, even when calls are slow', async () => {
  const s = await server({ delayMs: 150 });
  const store = ResultsStore.open(dbFile());
  const runner = new BenchMeasure(store, options([{ name: 'a', port: s.port }], { passes: 10 }));
  const running = runner.run(dataset(10));
  await new Promise((r) => setTimeout(r, 2600));
  // Read through a second connection, as another process (or a crash survivor) would.
  const reader = ResultsStore.open(dbFile(), { readonly: true });
  const { n } = reader.db.prepare('SELECT count(*) AS n FROM samples').get() as { n: number };
  reader.close();
  runner.stop();
  await running;
  store.close();
  expect(n).toBeGreaterThanOrEqual(6); // ~16 calls made by then; fewer than 500 were buffered before
});

test('a resumed run records each session, refuses another server version, and refuses a run a live process holds', async () => {
  const s = await server({ delayMs: 1, software: 'Server 1.0' });
  const ds = dataset(10);
  let store = ResultsStore.open(dbFile());
  const first = new BenchMeasure(store, options([{ name: 'a', port: s.port }], { passes: 30 }));
  const running = first.run(ds);
  await new Promise((r) => setTimeout(r, 400));
  first.stop();
  const r1 = await running;
  expect(r1.status).toBe('interrupted');
  store.close();

  // Another process holds the run: refused.
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
  try {
    store = ResultsStore.open(dbFile());
    store.db.prepare('UPDATE runs SET holder = ? WHERE id = ?').run(`${os.hostname()}:${holder.pid}`, r1.runId);
    await expect(new BenchMeasure(store, options([{ name: 'a', port: s.port }], { passes: 30 }), { resume: r1.runId }).run(ds)).rejects.toThrow(
      /being measured right now by process .* pid \d+/,
    );
    store.close();
  } finally {
    holder.kill('SIGKILL');
  }
  // Reaped, not a zombie that still answers kill(pid, 0) as if it held the run.
  if (holder.exitCode === null && holder.signalCode === null) await new Promise((r) => holder.once('exit', r));

  // A different server version: refused.
  const upgraded = await server({ delayMs: 1, software: 'Server 2.0' });
  store = ResultsStore.open(dbFile());
  await expect(new BenchMeasure(store, options([{ name: 'a', port: upgraded.port }], { passes: 30 }), { resume: r1.runId }).run(ds)).rejects.toThrow(
    /now reports "Server 2.0", but run \d+ measured "Server 1.0"/,
  );
  store.close();

  // The same version, the holder dead: the run completes, with two sessions.
  store = ResultsStore.open(dbFile());
  const r2 = await new BenchMeasure(store, options([{ name: 'a', port: s.port }], { passes: 30 }), { resume: r1.runId }).run(ds);
  expect(r2.status).toBe('completed');
  const sessions = store.sessions(r1.runId);
  expect(sessions).toHaveLength(2);
  expect(sessions.map((x) => x.status)).toEqual(['interrupted', 'completed']);
  expect(JSON.parse(sessions[1].servers_json)[0].software).toBe('Server 1.0');
  const { n } = store.db.prepare('SELECT count(*) AS n FROM samples WHERE run_id = ?').get(r1.runId) as { n: number };
  expect(n).toBe(30 * 10 * 3);
  expect(store.getRun(r1.runId)!.holder).toBeNull();
  store.close();
});
