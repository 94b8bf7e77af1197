/**
 * A server that answered nothing, or stopped answering, is said so in every run kind (bench, load,
 * wallet bench, wallet load): first in the
 * printed summary, in the JSON, in the report, and (answered nothing) by exit code 3 unless
 * --ignore-unanswered. Against a local server that negotiates and then never answers a scripthash
 * call, and one that answers its first few and then nothing (test/support/misbehaving-server.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchMeasure, benchSession, type BenchRun } from '../../../src/runs/kinds/bench';
import { loadSession, type LoadRun } from '../../../src/runs/kinds/load';
import { walletBenchSession } from '../../../src/runs/kinds/wallet-bench';
import { walletLoadSession } from '../../../src/runs/kinds/wallet-load';
import { exitCodeOf, EXIT_UNANSWERED } from '../../../src/runs/exit-code';
import { releaseClaims } from '../../../src/core/output-path';
import { releaseSignalHandlers } from '../../../src/runs/signals';
import type { BenchOptions } from '../../../src/bench/runner';
import { ResultsStore } from '../../../src/store/results';
import { readDataset } from '../../../src/dataset/line';
import { loadModel } from '../../../src/report/load';
import { serversTable } from '../../../src/report/tables';
import { readModels } from '../../../src/report/report';
import { reportOptions } from '../../../src/report/options';
import { printBench } from '../../../src/cli/print-bench';
import { printLoad } from '../../../src/cli/print-load';
import { printWalletBench, printWalletLoad } from '../../../src/cli/print-wallet';
import { workloadNamed } from '../../../src/wallet/workloads';
import { startMisbehavingServer, type Misbehaving, type MisbehavingOptions } from '../../support/misbehaving-server';
import { writeSyntheticDataset } from '../../support/synthetic-lines';
import { localTarget } from '../../support/load-options';
import { unusedWallet } from '../../support/unused-wallet';
import { readWallets } from '../../../src/dataset/wallet-file';

let tmp: string;
const servers: Misbehaving[] = [];
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-answering-'));
});
afterEach(async () => {
  releaseSignalHandlers();
  releaseClaims();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function server(o: MisbehavingOptions): Promise<Misbehaving> {
  const s = await startMisbehavingServer(o);
  servers.push(s);
  return s;
}

function benchOptions(port: number, addresses: number): BenchOptions {
  const datasetPath = path.join(tmp, 'd.jsonl');
  writeSyntheticDataset(datasetPath, addresses, 'answering ');
  return {
    servers: [localTarget(port, 'a')],
    datasetPath,
    methods: ['balance'],
    passes: 2,
    warmup: 1,
    shuffle: false,
    order: 'address',
    seed: 't',
    concurrency: 1,
    timeoutMs: 300,
    maxLineBytes: 1 << 20,
    tlsInsecure: false,
    verify: false,
  };
}

const unanswered = (answering: Array<{ server: string; answered: number; of: number }>) => answering.filter((a) => a.answered === 0 && a.of > 0).map((a) => a.server);

test('bench: a server that answered none of its calls is said first, in the JSON and the report, and fails the run with 3 unless --ignore-unanswered', async () => {
  const s = await server({ hangAfterHandshake: true });
  const opts = benchOptions(s.port, 3);
  const db = path.join(tmp, 'r.sqlite');
  const printed: string[] = [];
  const logged: string[] = [];
  const run = (ignoreUnanswered: boolean): BenchRun => ({
    opts,
    dataset: readDataset(opts.datasetPath),
    db,
    watch: { outputs: [], dashboard: undefined },
    title: 'bench',
    resources: [],
    sampleEveryS: 1,
    sweep: null,
    ignoreUnanswered,
    print: (o) => {
      printed.push(...printBench(o, { json: false, log: (l) => logged.push(l) }));
      printed.push(JSON.stringify(o.json));
    },
    log: (l) => logged.push(l),
  });
  expect(await benchSession(run(false))).toBe(EXIT_UNANSWERED);
  const [text, json] = printed;
  const lines = text.split('\n');
  expect(lines[0]).toMatch(/^run \d+ completed: 6 samples/);
  expect(lines[1]).toBe('a: answered 0 of 6: every call timed out after 0.3 s');
  expect(JSON.parse(json).answering).toEqual([{ server: 'a', answered: 0, of: 6, silence: 'every call timed out after 0.3 s', stoppedAnswering: null }]);
  const report = serversTable(loadModel(db));
  expect(report.rows[0][0]).toBe('a: answered 0 of 6: every call timed out after 0.3 s');
  releaseClaims();
  expect(await benchSession(run(true))).toBe(0);
});

test('bench: a server that answers its first calls and then nothing stopped answering: said first; its run still exits 0', async () => {
  const s = await server({ answerFirst: 3 });
  const opts = benchOptions(s.port, 5);
  const store = ResultsStore.open(path.join(tmp, 'r.sqlite'));
  try {
    const result = await new BenchMeasure(store, opts).run(readDataset(opts.datasetPath));
    expect(result.status).toBe('completed');
    const [a] = result.answering;
    expect({ answered: a.answered, of: a.of, silence: a.silence }).toEqual({ answered: 3, of: 10, silence: null });
    expect(a.stoppedAnswering).toEqual(expect.objectContaining({ answered: 3, of: 10, unanswered: 7 }));
    const text = printBench({ kind: 'bench', runId: result.runId, db: 'r.sqlite', status: result.status, answering: result.answering, thresholds: [], regressed: [], json: {}, detail: { result } }, { json: false, log: () => undefined })[0];
    expect(text.split('\n')[1]).toMatch(/^a: answered 3 of 10, stopped answering at \d+\.\d\d s \(7 unanswered after\)$/);
    expect(exitCodeOf({ status: 'completed', thresholdsFailed: false, regressed: false, unanswered: unanswered(result.answering), ignoreUnanswered: false })).toBe(0);
  } finally {
    store.close();
  }
});

test('load: a server that answered none of its requests is said first and in the JSON, and the run exits 3 unless --ignore-unanswered', async () => {
  const s = await server({ hangAfterHandshake: true });
  const datasetPath = path.join(tmp, 'd.jsonl');
  writeSyntheticDataset(datasetPath, 4, 'answering load ');
  const dataset = readDataset(datasetPath);
  const run = (ignoreUnanswered: boolean, db: string): LoadRun => ({
    plan: {
      model: { kind: 'rate', rate: 10 },
      durationMs: 1000,
      mix: { balance: 1 },
      connections: 2,
      pipeline: 16,
      timeoutMs: 300,
      maxLineBytes: 1 << 20,
      sourceAddresses: [],
      readyTimeoutMs: 1000,
      thresholds: [],
      outputs: [],
      dashboard: undefined,
    },
    servers: [localTarget(s.port, 'a')],
    lines: dataset.lines,
    dataset: { file: datasetPath, hash: dataset.hash },
    tlsInsecure: false,
    seed: 't',
    samples: false,
    resources: [],
    sampleEveryS: 1,
    progress: false,
    db,
    ignoreUnanswered,
    testOptions: {},
    title: 'load',
    log: () => undefined,
  });
  const { outcome, code } = await loadSession(run(false, path.join(tmp, 'a.sqlite')));
  expect(code).toBe(EXIT_UNANSWERED);
  expect(outcome.answering).toEqual([{ server: 'a', answered: 0, of: 10, silence: 'every request timed out after 0.3 s', stoppedAnswering: null }]);
  expect(outcome.json.answering).toEqual(outcome.answering);
  const text = printLoad(outcome, { json: false, log: () => undefined })[0].split('\n');
  expect(text[1]).toBe('a: answered 0 of 10: every request timed out after 0.3 s');
  releaseClaims();
  releaseSignalHandlers();
  expect((await loadSession(run(true, path.join(tmp, 'b.sqlite')))).code).toBe(0);
});

test('wallet bench: a server that answered none of its syncs is said first and in the JSON, and the run exits 3', async () => {
  const s = await server({ hangAfterHandshake: true, hangHeaders: true });
  const file = path.join(tmp, 'w.jsonl');
  fs.writeFileSync(file, JSON.stringify(unusedWallet) + '\n');
  const wallets = readWallets(file);
  const { outcome, code } = await walletBenchSession({
    opts: { servers: [localTarget(s.port, 'a')], workload: workloadNamed('bdk'), passes: 2, warmup: 1, timeoutMs: 300, maxLineBytes: 1 << 20, tlsInsecure: false, verify: false },
    wallets,
    db: path.join(tmp, 'r.sqlite'),
    watch: { outputs: [], dashboard: undefined },
    title: 'wallet bench',
    ignoreUnanswered: false,
    log: () => undefined,
  });
  expect(code).toBe(EXIT_UNANSWERED);
  expect(outcome.answering).toEqual([{ server: 'a', answered: 0, of: 2, silence: 'every wallet sync timed out after 0.3 s', stoppedAnswering: null }]);
  expect(outcome.json.answering).toEqual(outcome.answering);
  expect(printWalletBench(outcome, { json: false }).split('\n')[1]).toBe('a: answered 0 of 2: every wallet sync timed out after 0.3 s');
});

test('wallet bench: a server that answers its first syncs and then nothing stopped answering: said first, in the JSON and the report; its run still exits 0', async () => {
  // Each sync its own connection: the first two answered, the six after them time out (1 s each,
  // 6 s of silence in all; a shorter timeout could end an answered sync on a loaded machine).
  const s = await server({ nullResults: true, answerConnections: 2 });
  const file = path.join(tmp, 'w.jsonl');
  fs.writeFileSync(file, JSON.stringify(unusedWallet) + '\n');
  const db = path.join(tmp, 'r.sqlite');
  const { outcome, code } = await walletBenchSession({
    opts: { servers: [localTarget(s.port, 'a')], workload: workloadNamed('electrum'), passes: 8, warmup: 1, timeoutMs: 1000, maxLineBytes: 1 << 20, tlsInsecure: false, verify: false },
    wallets: readWallets(file),
    db,
    watch: { outputs: [], dashboard: undefined },
    title: 'wallet bench',
    ignoreUnanswered: false,
    log: () => undefined,
  });
  expect(code).toBe(0);
  const [a] = outcome.answering;
  expect({ answered: a.answered, of: a.of, silence: a.silence }).toEqual({ answered: 2, of: 8, silence: null });
  expect(a.stoppedAnswering).toEqual(expect.objectContaining({ answered: 2, of: 8, unanswered: 6 }));
  expect(outcome.json.answering).toEqual(outcome.answering);
  expect(printWalletBench(outcome, { json: false }).split('\n')[1]).toMatch(/^a: answered 2 of 8, stopped answering at \d+\.\d\d s \(6 unanswered after\)$/);
  // Stored with the run: the report says it from the database.
  const [run] = readModels(reportOptions({ db, out: path.join(tmp, 'report') })).wallet!.runs;
  expect(run.servers[0].answering).toEqual(a);
});

test('wallet load: a server that answered none of the syncs filling its hold is said first and in the JSON, and the run exits 3', async () => {
  const s = await server({ hangAfterHandshake: true, hangHeaders: true });
  const file = path.join(tmp, 'w.jsonl');
  fs.writeFileSync(file, JSON.stringify(unusedWallet) + '\n');
  const wallets = readWallets(file);
  const { outcome, code } = await walletLoadSession({
    plan: { workload: workloadNamed('electrum'), hold: 2, notify: false, notifyWaitMs: 1000, naturalWaitMs: 1000, watch: { outputs: [], dashboard: undefined } },
    servers: [localTarget(s.port, 'a')],
    wallets,
    chosen: wallets.wallets,
    holdConcurrency: 2,
    blocks: 1,
    payWallets: 0,
    tlsInsecure: false,
    timeoutMs: 300,
    maxLineBytes: 1 << 20,
    db: path.join(tmp, 'r.sqlite'),
    ignoreUnanswered: false,
    testOptions: {},
    title: 'wallet load',
    setups: new Map(),
    blockMaker: () => Promise.reject(new Error('no blocks in this test')),
    notes: [],
    log: () => undefined,
  });
  expect(code).toBe(EXIT_UNANSWERED);
  // The hold tries again until it holds or the run ends: as many syncs as it tried, none answered.
  const [a] = outcome.answering;
  expect(a).toEqual({ server: 'a', answered: 0, of: a.of, silence: 'every wallet sync timed out after 0.3 s', stoppedAnswering: null });
  expect(a.of).toBeGreaterThanOrEqual(2);
  expect(outcome.json.answering).toEqual(outcome.answering);
  expect(printWalletLoad(outcome, { json: false }).split('\n')[1]).toBe(`a: wallet syncs answered 0 of ${a.of}: every wallet sync timed out after 0.3 s`);
});
