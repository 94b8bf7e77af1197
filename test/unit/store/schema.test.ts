/**
 * Migration 8 (one run record) over a database built exactly as version 7 built it: migrations 1–7,
 * then rows of every run kind written with the statements the version-7 stores wrote. Every run,
 * server, sample, interval, sync, build and resource row must come through with its kind and links;
 * bench run ids stay; the numbers users knew other runs by still select them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from '../../../src/store/schema';
import { ResultsStore } from '../../../src/store/results';
import { LoadStore } from '../../../src/store/load-results';
import { ResultsReader } from '../../../src/store/read';
import { selectRuns } from '../../../src/report/selection';


let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-migration-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const HOST = JSON.stringify({ hostname: 'h', cpus: 2 });

/** Version 7's database with: bench runs 1–2, load runs 1–3, wallet runs 1 (bench) and 2 (load), index run 1. */
function writeV7(file: string): void {
  const db = new Database(file);
  migrate(db, 7);
  expect(db.pragma('user_version', { simple: true })).toBe(7);
  db.transaction(() => {
    // Bench, as ResultsStore.createRun, flush and finishRun wrote it.
    const run = db.prepare(`INSERT INTO runs (started_at, status, tool_version, git_commit, node_version, host_json, config_json,
      dataset_id, dataset_path, dataset_hash, dataset_lines, passes, warmup, methods, call_order, holder)
      VALUES (?, 'running', '0.1.0', 'abc', 'v20', ?, '{}', 'ds', '/d.jsonl', 'hash', 2, 2, 0, 'balance,history', 'interleaved', 'h:1')`);
    const server = db.prepare(`INSERT INTO servers (run_id, name, profile, url, software, protocol, banner, features_json) VALUES (?, ?, 'generic', ?, ?, '1.4', NULL, NULL)`);
    const address = db.prepare(`INSERT INTO addresses (run_id, idx, address, scripthash, type, tx_count, utxo_count, balance_confirmed, balance_unconfirmed)
      VALUES (?, ?, NULL, ?, 'p2wpkh', ?, 1, 10, 0)`);
    const sample = db.prepare(`INSERT OR REPLACE INTO samples (run_id, server_id, pass, warmup, address_idx, method, at_ms, latency_ns, response_bytes, result_size,
      status, error, tip_height, mismatch, requests) VALUES (?, ?, ?, 0, ?, ?, ?, ?, 100, 1, ?, NULL, 200, 0, NULL)`);
    for (const r of [1, 2]) {
      run.run('2026-01-0' + r + 'T00:00:00Z', HOST);
      server.run(r, 'electrumx', 'tcp://a:1', 'ElectrumX 1.16');
      server.run(r, 'fulcrum', 'tcp://b:1', 'Fulcrum 1.9');
      for (const idx of [0, 1]) address.run(r, idx, `sh${idx}`, 10 * (idx + 1));
    }
    // servers: run 1 → 1, 2; run 2 → 3, 4
    for (const [r, s] of [[1, 1], [1, 2], [2, 3], [2, 4]]) {
      for (const pass of [1, 2]) for (const idx of [0, 1]) sample.run(r, s, pass, idx, 'balance', 1000 + pass, 1_000_000 * (s + idx), s === 2 && idx === 1 ? 'timeout' : 'ok');
    }
    db.prepare(`INSERT INTO medians VALUES (1, 1, 'balance', 0, 1000000, 2, 0)`).run();
    db.prepare(`INSERT INTO summaries VALUES (1, 1, 'balance', 4, 4, 1, 2, 3, 3, 3, 0, '{}')`).run();
    db.prepare(`INSERT INTO run_sessions (run_id, session, started_at, host, pid, tool_version, git_commit, servers_json) VALUES (1, 1, 'x', 'h', 1, '0.1.0', 'abc', '[]')`).run();
    db.prepare(`UPDATE runs SET status = ?, finished_at = ?, holder = NULL, selfcheck_json = coalesce(?, selfcheck_json), pool_json = coalesce(?, pool_json) WHERE id = ?`).run(
      'completed', 'y', '{"ok":true}', '{"size":4}', 1,
    );

    // Load, as LoadStore.createRun, addInterval, addSamples and finishRun wrote it.
    const loadRun = db.prepare(`INSERT INTO load_runs (started_at, status, tool_version, git_commit, node_version, host_json, config_json, model_json,
      dataset_path, dataset_hash, shard, merged_from) VALUES (?, 'running', '0.1.0', 'abc', 'v20', ?, '{}', '{"kind":"rate","rate":10}', '/d.jsonl', 'hash', NULL, NULL)`);
    const loadServer = db.prepare('INSERT INTO load_servers (run_id, name, profile, url, software, protocol) VALUES (?, ?, ?, ?, ?, ?)');
    const interval = db.prepare(`INSERT OR REPLACE INTO load_intervals (run_id, server_id, idx, start_ms, length_ms, target_rate, vus, sent, dropped, in_flight,
      lag_hist, loop_delay_p99_us, step) VALUES (?, ?, ?, ?, 1000, 10, NULL, 10, 0, 0, NULL, 50, NULL)`);
    const cell = db.prepare(`INSERT OR REPLACE INTO load_cells (run_id, server_id, idx, method, outcome, count, bytes, latency_hist, service_hist)
      VALUES (?, ?, ?, 'balance', 'ok', 10, 1000, NULL, NULL)`);
    for (const r of [1, 2, 3]) {
      loadRun.run('2026-02-0' + r + 'T00:00:00Z', HOST);
      loadServer.run(r, `load${r}`, 'generic', 'tcp://c:1', null, null);
    }
    // load servers: run r → server r
    for (const r of [1, 2, 3]) for (let i = 0; i < r; i++) {
      interval.run(r, r, i, i * 1000);
      cell.run(r, r, i);
    }
    db.prepare('INSERT INTO load_samples (run_id, server_id, intended_us, method, outcome, latency_us, service_us) VALUES (2, 2, 5, ?, ?, 7, 6)').run('balance', 'ok');
    db.prepare(`UPDATE load_runs SET status = ?, finished_at = ?, generator_bound = ?, generator_json = ?, thresholds_json = ?, find_max_json = ? WHERE id = ?`).run(
      'aborted', 'z', 1, '{"load2":{"bound":true}}', null, null, 2,
    );

    // Wallets, as WalletStore.createRun, addSync, addNotifications and finishRun wrote them.
    const walletRun = db.prepare(`INSERT INTO wallet_runs (kind, started_at, status, tool_version, git_commit, node_version, host_json, config_json, workload,
      wallets_path, wallets_hash, passes, warmup) VALUES (?, 'w', 'running', '0.1.0', 'abc', 'v20', ?, '{}', 'electrum', '/w.jsonl', 'whash', ?, ?)`);
    walletRun.run('bench', HOST, 2, 1);
    walletRun.run('load', HOST, null, null);
    const walletServer = db.prepare('INSERT INTO wallet_servers (run_id, name, profile, url, software, protocol, setup_json) VALUES (?, ?, ?, ?, ?, ?, ?)');
    walletServer.run(1, 'electrs', 'electrs', 'tcp://d:1', null, null, '{"polling":"1 s"}');
    walletServer.run(2, 'electrs', 'electrs', 'tcp://d:1', 'electrs 0.10', '1.4', null);
    const sync = db.prepare(`INSERT INTO wallet_syncs (run_id, server_id, wallet, pass, warmup, scripts, expected_txs, intended_ms, lag_ms, duration_ns, requests, bytes,
      status, error, error_step, found_txs, found_confirmed, found_unconfirmed, mismatch) VALUES (?, ?, 'w1', 1, 0, 20, 5, ?, ?, 9000000, 2, 300, 'ok', NULL, NULL, 5, 5, 0, NULL)`);
    const request = db.prepare('INSERT INTO wallet_requests (sync_id, step, method, items, offset_ns, latency_ns, bytes, status, error) VALUES (?, ?, ?, 1, 0, 100, 150, ?, NULL)');
    for (const [r, s, intended] of [[1, 1, null], [2, 2, 100]]) {
      const id = Number(sync.run(r, s, intended, intended === null ? null : 3).lastInsertRowid);
      request.run(id, 'subscribe', 'blockchain.scripthash.subscribe', 'ok');
      request.run(id, 'history', 'blockchain.scripthash.get_history', 'ok');
    }
    db.prepare('INSERT INTO wallet_notifications (run_id, server_id, block_height, kind, connection, scripthash, latency_ns, status) VALUES (2, 2, 201, ?, 0, NULL, 5000, ?)').run('headers', 'ok');
    const finishWallet = db.prepare('UPDATE wallet_runs SET status = ?, finished_at = ?, summary_json = ? WHERE id = ?');
    finishWallet.run('completed', 'v', '{"rows":[]}', 1);
    finishWallet.run('interrupted', 'v', '{"servers":[{"server":"electrs","held":3}]}', 2);

    // Index, as cli/index-bench.ts and runIndexBench wrote it; build samples keyed by the build's id.
    db.prepare(`INSERT INTO index_runs (started_at, status, tool_version, git_commit, host_json, chain_json, config_json) VALUES ('i', 'running', '0.1.0', 'abc', ?, ?, ?)`).run(
      HOST,
      '{"tipHeight":300,"seed":1}',
      '{"servers":["electrs","fulcrum"],"repeat":1,"sweep":null}',
    );
    const build = db.prepare(`INSERT INTO index_builds (run_id, server, settings_json, repeat, index_ms, cpu_s, peak_rss_bytes, read_bytes,
      write_bytes, datadir_bytes, phases_json) VALUES (1, ?, '{}', 1, 0, NULL, NULL, NULL, NULL, NULL, '[]')`);
    build.run('electrs');
    build.run('fulcrum');
    db.prepare(`UPDATE index_builds SET index_ms = 1500, cpu_s = 1.5, phases_json = '[{"name":"index","ms":1500}]' WHERE id = 2`).run();
    db.prepare('UPDATE index_runs SET status = ?, finished_at = ? WHERE id = ?').run('completed', 'j', 1);

    // Resource and metric samples of each kind, as resourceWriter wrote them.
    const res = db.prepare(`INSERT INTO resource_samples (run_kind, run_id, target, at_ms, processes, cpu_user_s, cpu_system_s, rss_bytes)
      VALUES (?, ?, ?, ?, 1, ?, 0, 1000)`);
    const metric = db.prepare('INSERT INTO metric_samples (run_kind, run_id, target, at_ms, name, value) VALUES (?, ?, ?, ?, ?, ?)');
    for (const [kind, id, target] of [['bench', 1, 'electrumx'], ['load', 2, 'load2'], ['index', 1, 'electrs'], ['index', 2, 'fulcrum']] as const) {
      res.run(kind, id, target, 0, 1);
      res.run(kind, id, target, 1000, 2);
      metric.run(kind, id, target, 0, 'up', 1);
    }
  })();
  db.close();
}

const all = <T>(db: Database.Database, sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[];

describe('a version-7 database', () => {
  let file: string;
  let db: Database.Database;
  let store: ResultsStore;
  const idOf = (kind: string, legacy: number) => (db.prepare('SELECT id FROM runs WHERE kind = ? AND legacy_id = ?').get(kind, legacy) as { id: number }).id;

  beforeAll(() => {
    file = path.join(tmp, 'v7.sqlite');
    writeV7(file);
    store = ResultsStore.open(file);
    db = store.db;
  });
  afterAll(() => store.close());

  test('is at the current version, every reference intact, no table of 1–7 left', () => {
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(14); // 8 made the one run record; 9 added run_servers.outcome_json; 10 load_runs.model_text; 11 limits runs; 12 samples.cold and cold_summaries; 13 abuse_runs and abuse_phases; 14 cold_summaries.warm_mean_sum_ns
    expect(db.pragma('foreign_key_check')).toEqual([]);
    const tables = all<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((t) => t.name);
    expect(tables.filter((t) => t.startsWith('v7_') || ['servers', 'load_servers', 'wallet_servers'].includes(t))).toEqual([]);
  });

  test('every run is one row of runs with its kind; bench ids unchanged; the others above every old id, remembering it', () => {
    const runs = all<{ id: number; kind: string; legacy_id: number; status: string; node_version: string | null }>(db, 'SELECT id, kind, legacy_id, status, node_version FROM runs ORDER BY id');
    expect(runs.map((r) => [r.kind, r.legacy_id, r.status])).toEqual([
      ['bench', 1, 'completed'],
      ['bench', 2, 'running'],
      ['load', 1, 'running'],
      ['load', 2, 'aborted'],
      ['load', 3, 'running'],
      ['wallet-bench', 1, 'completed'],
      ['wallet-load', 2, 'interrupted'],
      ['index', 1, 'completed'],
    ]);
    expect(runs.slice(0, 2).map((r) => r.id)).toEqual([1, 2]);
    expect(Math.min(...runs.slice(2).map((r) => r.id))).toBeGreaterThan(3); // above bench 2, load 3, wallet 2, index 1
    expect(new Set(runs.map((r) => r.id)).size).toBe(8);
    expect(runs.find((r) => r.kind === 'index')!.node_version).toBeNull(); // version 7 did not record it
    // The bench run through the store the bench CLI uses: its details came along.
    const bench = store.getRun(1)!;
    expect(bench).toMatchObject({ id: 1, dataset_id: 'ds', dataset_lines: 2, passes: 2, methods: 'balance,history', call_order: 'interleaved', selfcheck_json: '{"ok":true}', pool_json: '{"size":4}', holder: null });
    expect(store.listRuns().map((r) => r.id)).toEqual([1, 2]);
  });

  test('every server is in run_servers under its run; bench server ids unchanged', () => {
    const servers = all<{ id: number; kind: string; legacy_id: number; name: string; setup_json: string | null; software: string | null }>(
      db,
      'SELECT s.id, r.kind, r.legacy_id, s.name, s.setup_json, s.software FROM run_servers s JOIN runs r ON r.id = s.run_id ORDER BY s.id',
    );
    expect(servers.map((s) => [s.kind, s.legacy_id, s.name])).toEqual([
      ['bench', 1, 'electrumx'],
      ['bench', 1, 'fulcrum'],
      ['bench', 2, 'electrumx'],
      ['bench', 2, 'fulcrum'],
      ['load', 1, 'load1'],
      ['load', 2, 'load2'],
      ['load', 3, 'load3'],
      ['wallet-bench', 1, 'electrs'],
      ['wallet-load', 2, 'electrs'],
    ]);
    expect(servers.slice(0, 4).map((s) => s.id)).toEqual([1, 2, 3, 4]);
    expect(servers[7].setup_json).toBe('{"polling":"1 s"}');
    expect(servers[8].software).toBe('electrs 0.10');
  });

  test('bench samples, medians, summaries, addresses and sessions keep their run and server', () => {
    const perServer = all<{ run_id: number; name: string; n: number; timeouts: number }>(
      db,
      `SELECT x.run_id, s.name, count(*) AS n, sum(x.status = 'timeout') AS timeouts FROM samples x JOIN run_servers s ON s.id = x.server_id AND s.run_id = x.run_id
        GROUP BY x.run_id, s.name ORDER BY x.run_id, s.name`,
    );
    expect(perServer).toEqual([
      { run_id: 1, name: 'electrumx', n: 4, timeouts: 0 },
      { run_id: 1, name: 'fulcrum', n: 4, timeouts: 2 },
      { run_id: 2, name: 'electrumx', n: 4, timeouts: 0 },
      { run_id: 2, name: 'fulcrum', n: 4, timeouts: 0 },
    ]);
    expect(all(db, 'SELECT run_id, server_id, median_ns FROM medians')).toEqual([{ run_id: 1, server_id: 1, median_ns: 1000000 }]);
    expect(all(db, 'SELECT run_id, server_id, p99_ns FROM summaries')).toEqual([{ run_id: 1, server_id: 1, p99_ns: 3 }]);
    expect(all(db, 'SELECT run_id, count(*) AS n FROM addresses GROUP BY run_id')).toEqual([{ run_id: 1, n: 2 }, { run_id: 2, n: 2 }]);
    expect(store.sessions(1).map((s) => s.session)).toEqual([1]);
    expect(store.callsPerServer(1)).toEqual(new Map([['electrumx', 4], ['fulcrum', 4]]));
  });

  test('load intervals, cells and samples follow their run and server; the run reads whole through the load store', () => {
    const loads = new LoadStore(store);
    for (const legacy of [1, 2, 3]) {
      const id = idOf('load', legacy);
      const servers = loads.servers(id);
      expect(servers.map((s) => s.name)).toEqual([`load${legacy}`]);
      const intervals = [...loads.intervals(id, servers[0].id)];
      expect(intervals.map((i) => i.index)).toEqual(Array.from({ length: legacy }, (_, i) => i));
      expect(intervals.every((i) => i.server === `load${legacy}` && i.cells.length === 1 && i.cells[0].count === 10)).toBe(true);
    }
    const run2 = loads.run(idOf('load', 2))!;
    expect(run2).toMatchObject({ status: 'aborted', generator_bound: 1, generator_json: '{"load2":{"bound":true}}', model_json: '{"kind":"rate","rate":10}', dataset_hash: 'hash' });
    expect(all(db, 'SELECT r.legacy_id, s.name FROM load_samples x JOIN runs r ON r.id = x.run_id JOIN run_servers s ON s.id = x.server_id')).toEqual([{ legacy_id: 2, name: 'load2' }]);
  });

  test('wallet syncs, their requests and notifications follow their run and server', () => {
    const reader = new ResultsReader(store);
    const runs = reader.walletRuns();
    expect(runs.map((r) => [r.kind, r.legacy_id, r.workload, r.wallets_path, r.wallets_hash, r.passes])).toEqual([
      ['bench', 1, 'electrum', '/w.jsonl', 'whash', 2],
      ['load', 2, 'electrum', '/w.jsonl', 'whash', null],
    ]);
    expect(runs[1].summary_json).toBe('{"servers":[{"server":"electrs","held":3}]}');
    for (const r of runs) {
      const [server] = reader.walletServers(r.id);
      expect(reader.countedSyncs(r.id)).toEqual([{ server_id: server.id, wallet: 'w1', pass: 1, scripts: 20, expected_txs: 5, status: 'ok', duration_ns: 9000000 }]);
      expect([...reader.stepRequests(r.id)].map((q) => [q.server, q.step])).toEqual([
        [server.id, 'history'],
        [server.id, 'subscribe'],
      ]);
    }
    const load = runs[1];
    expect(reader.arrivals(load.id)).toEqual([{ server_id: reader.walletServers(load.id)[0].id, status: 'ok', lag_ms: 3, duration_ns: 9000000 }]);
    expect(reader.notifications(load.id).map((n) => [n.kind, n.block_height, n.status])).toEqual([['headers', 201, 'ok']]);
    expect(reader.notifications(runs[0].id)).toEqual([]);
  });

  test('index builds keep their ids under the index run; resource and metric samples follow their run (and build)', () => {
    const reader = new ResultsReader(store);
    const latest = reader.index.latestCompleted()!;
    expect(latest.run).toMatchObject({ id: idOf('index', 1), chain_json: '{"tipHeight":300,"seed":1}' });
    expect(latest.builds.map((b) => [b.id, b.server, b.index_ms])).toEqual([
      [1, 'electrs', 0],
      [2, 'fulcrum', 1500],
    ]);
    const samples = all<{ kind: string; legacy_id: number; build_id: number | null; target: string; n: number }>(
      db,
      'SELECT r.kind, r.legacy_id, x.build_id, x.target, count(*) AS n FROM resource_samples x JOIN runs r ON r.id = x.run_id GROUP BY x.run_id, x.build_id, x.target ORDER BY r.id, x.build_id',
    );
    expect(samples).toEqual([
      { kind: 'bench', legacy_id: 1, build_id: null, target: 'electrumx', n: 2 },
      { kind: 'load', legacy_id: 2, build_id: null, target: 'load2', n: 2 },
      { kind: 'index', legacy_id: 1, build_id: 1, target: 'electrs', n: 2 },
      { kind: 'index', legacy_id: 1, build_id: 2, target: 'fulcrum', n: 2 },
    ]);
    expect(all(db, 'SELECT r.kind, x.build_id, x.target FROM metric_samples x JOIN runs r ON r.id = x.run_id ORDER BY r.id, x.build_id')).toEqual([
      { kind: 'bench', build_id: null, target: 'electrumx' },
      { kind: 'load', build_id: null, target: 'load2' },
      { kind: 'index', build_id: 1, target: 'electrs' },
      { kind: 'index', build_id: 2, target: 'fulcrum' },
    ]);
    expect(reader.resourceSummaries(1)).toEqual([expect.objectContaining({ target: 'electrumx', seconds: 1, cpuSeconds: 1 })]);
    expect(reader.index.buildSamples(idOf('index', 1), 2).summaries()).toEqual([expect.objectContaining({ target: 'fulcrum', cpuSeconds: 1 })]);
  });

  test('the numbers users knew runs by still select them: --load-run 2, --wallet-run 2, load hlog --run 3; new ids select too', () => {
    const reader = new ResultsReader(store);
    const sel = selectRuns(reader, file, [], [2], [2]);
    expect(sel.load.map((l) => [l.run.id, l.run.legacy_id, l.run.number])).toEqual([[idOf('load', 2), 2, 2]]);
    expect(sel.wallet.map((w) => [w.id, w.kind, w.legacy_id, w.number])).toEqual([[idOf('wallet-load', 2), 'load', 2, 2]]);
    expect(new LoadStore(store).resolve(3)).toBe(idOf('load', 3));
    expect(reader.resolve('wallet', 1)).toBe(idOf('wallet-bench', 1));
    expect(reader.resolve('load', idOf('load', 1))).toBe(idOf('load', 1));
    expect(reader.resolve('load', idOf('index', 1))).toBeUndefined(); // another kind's id
    expect(reader.resolve('load', 99)).toBeUndefined();
    expect(reader.resolve('bench', 2)).toBe(2);
    // A run written now takes an id above them all and is found by it.
    const { runId } = new LoadStore(store).createRun(
      { tool_version: 't', git_commit: null, config: {}, model: { kind: 'rate', rate: 1 } as never, model_text: 'open, 1/s', dataset_path: null, dataset_hash: null, shard: null },
      [{ name: 'x', profile: 'generic', url: 'tcp://x:1', software: null, protocol: null }],
    );
    expect(runId).toBeGreaterThan(idOf('index', 1));
    expect(selectRuns(reader, file, [], [runId]).load[0].run).toMatchObject({ id: runId, legacy_id: null, number: runId, status: 'running' });
    expect(() => selectRuns(reader, file, [], [99])).toThrow(`--load-run: no load run 99 in ${file} (load runs: 1, 2, 3, ${runId})`);
  });
});

test('read-only opens read an upgraded copy and leave the version-7 file as it was', () => {
  const file = path.join(tmp, 'v7-readonly.sqlite');
  writeV7(file);
  const before = fs.readFileSync(file);
  const store = ResultsStore.open(file, { readonly: true });
  try {
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(new ResultsReader(store).walletRuns().length).toBe(2);
  } finally {
    store.close();
  }
  expect(fs.readFileSync(file).equals(before)).toBe(true);
});

test('the migration is one transaction: one that fails leaves the version-7 database whole', () => {
  const file = path.join(tmp, 'v7-fails.sqlite');
  writeV7(file);
  const db = new Database(file);
  db.exec('CREATE TABLE bench_runs (x)'); // a table of the user's own, in the way of migration 8
  db.close();
  expect(() => ResultsStore.open(file)).toThrow(/not an electrum-bench results database \(table bench_runs already exists\)/);
  const after = new Database(file, { readonly: true });
  try {
    expect(after.pragma('user_version', { simple: true })).toBe(7);
    expect(all(after, 'SELECT count(*) AS n FROM load_runs')).toEqual([{ n: 3 }]);
    expect(all(after, 'SELECT count(*) AS n FROM samples')).toEqual([{ n: 16 }]);
    expect(all(after, "SELECT name FROM sqlite_master WHERE name LIKE 'v7_%'")).toEqual([]);
  } finally {
    after.close();
  }
});
