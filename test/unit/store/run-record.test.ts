/**
 * The one run record as each kind's store writes it: every kind's run is a row of `runs` with its
 * kind, what every run has, its servers in `run_servers`, and its detail row; finishing a run ends
 * it the same way for all; the report reads each back through the one reader.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../../src/store/results';
import { LoadStore } from '../../../src/store/load-results';
import { WalletStore } from '../../../src/store/wallets';
import { IndexStore } from '../../../src/store/index-results';
import { ResultsReader } from '../../../src/store/read';
import { createRun, serversOf, setServerReplies } from '../../../src/store/run-record';
import { readLatestIndexRun } from '../../../src/report/resources';

let tmp: string;
let store: ResultsStore;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-run-record-'));
  store = ResultsStore.open(path.join(tmp, 'r.sqlite'));
});
afterAll(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const runRow = (id: number) => store.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as Record<string, unknown>;

test('each kind writes one row of runs, its servers and its details; ids are shared by all kinds', () => {
  const bench = store.createRun(
    {
      started_at: '2026-01-01T00:00:00Z',
      tool_version: '1',
      git_commit: 'g',
      node_version: 'v20',
      host_json: '{}',
      config_json: '{"a":1}',
      dataset_id: 'ds',
      dataset_path: '/d',
      dataset_hash: 'h',
      dataset_lines: 0,
      passes: 1,
      warmup: 0,
      methods: 'balance',
      call_order: null,
    },
    [{ name: 'electrumx', profile: 'electrumx', url: 'tcp://a:1', software: 'ElectrumX', protocol: '1.4', banner: null, features_json: null }],
    [],
  );
  const load = new LoadStore(store).createRun(
    { tool_version: '1', git_commit: 'g', config: { rate: 5 }, model: { kind: 'rate', rate: 5 } as never, model_text: 'open, 5/s', dataset_path: '/d', dataset_hash: 'h', shard: '1/2' },
    [{ name: 'fulcrum', profile: 'fulcrum', url: 'tcp://b:1', software: null, protocol: null }],
  );
  const wallets = new WalletStore(store);
  const wallet = wallets.createRun(
    { kind: 'load', tool_version: '1', git_commit: 'g', config: {}, workload: 'sparrow', wallets_path: '/w', wallets_hash: 'wh', passes: null, warmup: null },
    [{ name: 'electrs', profile: 'electrs', url: 'tcp://c:1', software: null, protocol: null, setup: { pollMs: 500 } }],
  );
  const index = new IndexStore(store).createRun({ tool_version: '1', git_commit: 'g', chain: { tipHeight: 9 }, config: { sweep: null } });

  expect([bench.runId, load.runId, wallet.runId, index]).toEqual([1, 2, 3, 4]);
  expect([1, 2, 3, 4].map((id) => [runRow(id).kind, runRow(id).status, runRow(id).legacy_id])).toEqual([
    ['bench', 'running', null],
    ['load', 'running', null],
    ['wallet-load', 'running', null],
    ['index', 'running', null],
  ]);
  expect(runRow(1).holder).toMatch(/:\d+$/); // a bench run is held by its process, so two cannot resume it
  expect(runRow(2)).toMatchObject({ config_json: '{"rate":5}', dataset_path: '/d', dataset_hash: 'h', node_version: process.version });
  expect(runRow(3)).toMatchObject({ dataset_path: '/w', dataset_hash: 'wh' });
  expect(store.db.prepare('SELECT r.kind, s.name, s.setup_json FROM run_servers s JOIN runs r ON r.id = s.run_id ORDER BY s.id').all()).toEqual([
    { kind: 'bench', name: 'electrumx', setup_json: null },
    { kind: 'load', name: 'fulcrum', setup_json: null },
    { kind: 'wallet-load', name: 'electrs', setup_json: '{"pollMs":500}' },
  ]);
  expect(load.serverIds).toEqual(new Map([['fulcrum', 2]]));
  expect(wallet.serverIds).toEqual(new Map([['electrs', 3]]));

  // What a server says of itself: load takes the latest, wallets keep the first.
  new LoadStore(store).setServerInfo(2, 'Fulcrum 1.9', '1.5');
  wallets.setServerIdentity(3, 'electrs 0.10', '1.4');
  wallets.setServerIdentity(3, 'other', '9');
  expect(store.db.prepare('SELECT software, protocol FROM run_servers WHERE id IN (2, 3) ORDER BY id').all()).toEqual([
    { software: 'Fulcrum 1.9', protocol: '1.5' },
    { software: 'electrs 0.10', protocol: '1.4' },
  ]);

  // Each kind through the one reader: its own runs only.
  const reader = new ResultsReader(store);
  expect(reader.benchRuns().map((r) => r.id)).toEqual([1]);
  expect(reader.loadRuns().map((r) => [r.id, r.number, r.shard])).toEqual([[2, 2, '1/2']]);
  expect(reader.walletRuns().map((r) => [r.id, r.number, r.kind, r.workload, r.wallets_path])).toEqual([[3, 3, 'load', 'sparrow', '/w']]);
  expect(reader.index.latestCompleted()).toBeNull(); // still running
});

test('finishing ends every kind alike: status, time, no holder; details beside it', () => {
  store.finishRun(1, 'completed', { pool: { size: 2 } });
  new LoadStore(store).finishRun(2, { status: 'aborted', generatorBound: true, generator: { fulcrum: { bound: true } } });
  new WalletStore(store).finishRun(3, 'interrupted', { servers: [] });
  new IndexStore(store).finishRun(4, 'completed');
  for (const [id, status] of [[1, 'completed'], [2, 'aborted'], [3, 'interrupted'], [4, 'completed']] as const) {
    expect(runRow(id)).toMatchObject({ status, holder: null, finished_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  }
  expect(store.getRun(1)!.pool_json).toBe('{"size":2}');
  expect(new LoadStore(store).run(2)).toMatchObject({ generator_bound: 1, generator_json: '{"fulcrum":{"bound":true}}' });
  expect(new ResultsReader(store).walletRuns()[0].summary_json).toBe('{"servers":[]}');
});

test('an index run: builds, their resource samples and figures, read back as the report reads them', () => {
  const index = new IndexStore(store);
  const runId = index.createRun({ tool_version: '1', git_commit: 'g', chain: { tipHeight: 120 }, config: { sweep: null } });
  for (const [server, cpu] of [['electrs', 2], ['fulcrum', 5]] as const) {
    const build = index.addBuild(runId, server, {}, 1);
    const samples = index.buildSamples(runId, build);
    const reading = (atMs: number, cpuS: number) => ({
      target: server,
      atMs,
      proc: { pids: [1], cpuUserS: cpuS, cpuSystemS: 0, rssBytes: 1 << 20, peakRssBytes: 2 << 20, readBytes: 0, writeBytes: 10, readCalls: 0, writeCalls: 0, fds: 3, threads: 1 },
      datadirBytes: 4096,
      host: null,
      metrics: [],
    });
    samples.write([reading(0, 0), reading(1000, cpu)]);
    const [cost] = samples.summaries();
    expect(cost).toMatchObject({ target: server, seconds: 1, cpuSeconds: cpu, peakRssBytes: 2 << 20 });
    index.finishBuild(build, { indexMs: 1000 * cpu, cpuS: cost.cpuSeconds, peakRssBytes: cost.peakRssBytes, readBytes: 0, writeBytes: 0, datadirBytes: 4096, phases: [] });
  }
  index.finishRun(runId, 'completed');
  const report = readLatestIndexRun(new ResultsReader(store))!;
  expect(report).toMatchObject({ runId, tipHeight: 120, sweep: null });
  expect(report.summaries.map((s) => [s.server, s.indexMs, s.cpuS])).toEqual([
    ['electrs', 2000, 2],
    ['fulcrum', 5000, 5],
  ]);
  // A build's samples are its own, not its run's nor another build's.
  expect(new ResultsReader(store).resourceSummaries(runId)).toEqual([]);
});

test("what a server's handshake saw of its replies joins its setup JSON, keeping what was there", () => {
  const { runId } = createRun(store.db, { kind: 'load', tool_version: '1', git_commit: 'g', config_json: '{}' }, [
    { name: 'a', profile: 'electrumx', url: 'electrum://h:1', setup_json: JSON.stringify({ polling: 'every 200 ms' }) },
    { name: 'b', profile: 'electrumx', url: 'electrum://h:2' },
  ]);
  const [a, b] = serversOf(store.db, runId);
  setServerReplies(store.db, a.id, { padded: true, smallReplyMs: 1001.5 });
  setServerReplies(store.db, b.id, { padded: false, smallReplyMs: null });
  const [a2, b2] = serversOf(store.db, runId);
  expect(JSON.parse(a2.setup_json!)).toEqual({ polling: 'every 200 ms', replies: { padded: true, smallReplyMs: 1001.5 } });
  expect(JSON.parse(b2.setup_json!)).toEqual({ replies: { padded: false, smallReplyMs: null } });
});
