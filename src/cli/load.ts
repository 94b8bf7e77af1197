/**
 * `electrum-bench load`: drive Electrum servers at a set arrival rate (open model) or with a set
 * number of virtual clients (closed model), one server after another, recording HdrHistograms per
 * second into the results database; k6-style thresholds decide the exit code (99 when one fails).
 * Options are validated and completed here, before any connection is made.
 */
import fs from 'node:fs';
import yargs from 'yargs';
import { runCli } from './run-cli';
import { configFileParser } from './declared-options';
import { fileAboutToBeCreated } from '../core/created-file';
import { claimInput, claimOutputFile } from '../core/output-path';
import { claimDatabase } from '../store/ownership';
import { onStopSignal } from './signals';
import { ensureReachable, readCa, resolveTargets } from './server-targets';
import { expectedNetwork } from '../dataset/expected-network';
import { transportOf } from '../transports/registry';
import { resourceTargets, startSampling, withResourceOptions } from './resource-targets';
import { DEFAULT_MAX_LINE_BYTES } from '../electrum/client';
import { targetUrl } from '../servers/targets';
import { readDataset } from '../dataset/line';
import { ResultsStore } from '../store/results';
import { UserError } from '../core/user-error';
import { writeFileAtomic } from '../core/atomic-write';
import { LoadOptions, LoadRunner } from '../engine/runner';
import { serversInTurn } from '../engine/servers-in-turn';
import { serversInTurns } from '../engine/interleave';
import { checkTurns, loadAbVerdicts, turnsConfig, turnsLine } from './load-ab';
import { stepLine } from '../engine/find-max';
import { LoadStore } from '../store/load-results';
import { intervalLine, summaryText } from '../load/summary';
import { storedOutcome, summarise } from '../engine/summary';
import type { LiveCounts } from '../engine/sinks/hdr-intervals';
import { CHOOSABLE, executorFor } from '../engine/executors/registry';
import type { OutputSet } from '../engine/outputs/output-set';
import { openWatchers, withWatchOptions } from './watch-options';
import type { IntervalRecord } from '../core/load-types';
import { createThresholdTracker, formatThresholdResults, parseThreshold } from '../load/thresholds';
import { isWalletMerge, mergeShards } from '../runs/merge';
import { testIdentity } from '../runs/test-identity';
import { writeHlog } from '../load/hlog';
import { formatShard, linesOfShard, parseShard } from '../core/shard';
import { asShard, mergeTest, sendResults, type CoordinatedShard } from './coordinated';
import { toolInfo } from '../core/tool-info';
import { WORKLOAD_NAMES } from '../wallet/workloads';
import { refuseWalletOptions, walletLoad } from './wallet-load';
import { collecting, refusingMistakes } from './validate';
import { loadPlan, pinGenerator, withModelOptions, type LoadPlan } from './load-plan';
import { pinningText } from '../core/cpu-set';

export function loadArgs(argv: string[]) {
  const y = yargs(argv);
  const targets = withWatchOptions(withResourceOptions(y))
    .scriptName('npm run load --')
    .usage(`$0 --server PROFILE[@HOST:PORT] ... [--dataset FILE] (${CHOOSABLE.map((e) => e.choice.usage).join(' | ')}) [options]\n$0 merge SHARD.sqlite ... --db ALL.sqlite\n$0 hlog --db FILE [--run ID] --out FILE.hlog`)
    .option('server', { type: 'string', array: true, describe: 'server to load: [LABEL=]PROFILE[@[ssl://]HOST[:PORT]] (repeatable; one after another)' })
    .option('host', { type: 'string', describe: 'host for a --server given without one' })
    .option('port', { type: 'number', describe: 'port for a --server given without one' })
    .option('tls', { type: 'boolean', default: false, describe: 'use TLS for --server given without a scheme' })
    .option('tls-insecure', { type: 'boolean', default: false, describe: 'accept any TLS certificate (self-signed servers)' })
    .option('ca', { type: 'string', describe: 'PEM file of extra CA certificates to trust' })
    .option('lab', { type: 'boolean', default: false, describe: 'load every Electrum server of the running lab' })
    .option('dataset', { type: 'string', describe: "JSONL dataset of addresses (default with a lab server: the lab's dataset)" })
    .option('mix', { type: 'string', default: 'balance=40,history=40,utxos=20', describe: 'request mix: METHOD=WEIGHT,...' });
  // Each executor's options (--rate, --vus, ...) as it declares them (src/engine/executors/).
  return refusingMistakes(
    withModelOptions(targets)
      .option('connections', { type: 'number', describe: 'sockets per server (default 8; --vus: one per client)' })
      .option('pipeline', { type: 'number', default: 16, describe: 'open model: requests in flight per socket; beyond, requests are dropped' })
      .option('timeout', { type: 'number', default: 10, describe: 'seconds before a request counts as a timeout' })
      .option('max-line-bytes', { type: 'number', default: DEFAULT_MAX_LINE_BYTES, describe: 'largest response line accepted' })
      .option('db', { type: 'string', default: 'results/load.sqlite', describe: 'results database (SQLite)' })
      .option('threshold', { type: 'string', array: true, describe: 'k6-style pass/fail criterion, e.g. "latency:p(99)<250" (repeatable)' })
      .option('json', { type: 'boolean', default: false, describe: 'print the summary as JSON' })
      .option('summary-export', { type: 'string', describe: 'also write the summary as JSON to this file' })
      .option('samples', { type: 'boolean', default: false, describe: 'also store every request (memory and disk grow with the run)' })
      .option('shard', { type: 'string', describe: 'run shard I/N of a larger test: its share of the rate, connections and dataset' })
      .option('start-at', { type: 'number', describe: 'with --shard: start the schedule at this time (seconds since the epoch), the same for every shard' })
      .option('coordinator', { type: 'string', describe: 'with --shard: a coordinated test: shard 1 listens at HOST:PORT, starts every shard at once, merges their results into --db and judges --threshold on the whole' })
      .option('ready-timeout', { type: 'string', default: '60s', describe: 'with --coordinator: how long shards may take to register (and to find the coordinator)' })
      .option('cpu', { type: 'string', describe: 'run the generator on these CPUs only (a taskset list: 1, 2-3), recorded with the run; keep the servers off them (lab up --cpus)' })
      .option('source-addresses', { type: 'string', describe: 'spread connections over loopback source addresses, e.g. 127.0.0.2-127.0.0.9' })
      .option('seed', { type: 'string', default: 'electrum-bench', describe: 'seed of the request sequence' })
      .option('interleave', { type: 'string', describe: 'servers take turns of this long (e.g. 5s) under the same load, A B then B A, each the whole --duration in total' })
      .option('baseline', { type: 'string', describe: 'with --interleave: an A/B run: the server every other is judged against, turn by turn, per percentile (recorded with the run)' })
      .option('fail-on-regression', { type: 'number', describe: 'with --baseline: exit 99 when a verdict is slower by more than this percent (results still written)' })
      .option('find-max', { type: 'boolean', default: false, describe: "search each server's max sustainable rate under --slo" })
      .option('slo', { type: 'string', describe: 'with --find-max: the latency objective, e.g. "p99<100ms"' })
      .option('max-error-rate', { type: 'number', default: 0.01, describe: 'with --find-max: errors + timeouts + dropped allowed per step' })
      .option('dwell', { type: 'string', default: '20s', describe: 'with --find-max: how long each step lasts' })
      .option('warmup', { type: 'string', default: '10s', describe: 'with --find-max: warm-up at the start rate, not judged' })
      .option('step-factor', { type: 'number', default: 1.5, describe: 'with --find-max: each step multiplies the rate by this' })
      .option('max-rate', { type: 'number', default: 100_000, describe: 'with --find-max: stop stepping up here' })
      .option('bisect-steps', { type: 'number', default: 3, describe: 'with --find-max: bisections between the last pass and the first failure' })
      .option('progress', { type: 'boolean', default: true, describe: 'a line per second on stderr (--no-progress to hide)' })
      .option('workload', { type: 'string', describe: `drive whole wallets instead of requests: ${WORKLOAD_NAMES.join(', ')}` })
      .option('wallets', { type: 'string', describe: "--workload: wallets JSONL file (default with --lab: the lab's wallets)" })
      .option('hold', { type: 'number', describe: '--workload: wallets synced and kept connected and subscribed for the rest of the run' })
      .option('hold-concurrency', { type: 'number', default: 16, describe: '--workload: syncs at once while filling --hold' })
      .option('wallet-max-txs', { type: 'number', describe: '--workload: only wallets with at most this many transactions' })
      .option('notify', { type: 'boolean', default: false, describe: '--workload with --hold: mine blocks paying held wallets and time the notifications' })
      .option('blocks', { type: 'number', default: 3, describe: '--notify: blocks to mine per server' })
      .option('pay-wallets', { type: 'number', default: 5, describe: '--notify (lab): held wallets paid in each block' })
      .option('mine-via', { type: 'string', describe: '--notify outside the lab: RPC URL of a regtest node to mine on (blocks only)' })
      .option('rpc-cookie', { type: 'string', describe: '--mine-via: cookie file (user:password) of that node' })
      .option('notify-wait', { type: 'string', default: '20s', describe: '--notify: how long a notification may take before it counts as missing' })
      .option('natural-wait', { type: 'string', default: '30m', describe: '--notify with no way to mine (not the lab, no --mine-via): how long to wait for each natural block' })
      .option('slo-notify', { type: 'string', describe: '--workload --find-max: the most held wallets told of a block within this, e.g. "p99<5s" (from --hold, × --step-factor a step)' })
      .option('max-hold', { type: 'number', default: 10_000, describe: '--slo-notify: hold at most this many wallets' })
      .config('config', 'JSON file with any of these options', configFileParser(y)),
    argv,
  );
}

type Argv = Awaited<ReturnType<ReturnType<typeof loadArgs>['parseAsync']>>;

async function datasetPath(a: Argv, targets: Array<{ host: string; port: number }>): Promise<string> {
  if (a.dataset) return a.dataset;
  const { labStatus } = await import('../lab/lab');
  const status = await labStatus();
  const labPorts = new Set(
    Object.values(status.electrum).flatMap((e) =>
      e ? [e.port, e.tls?.port, e.rest ? Number(new URL(e.rest).port) : undefined].filter((p): p is number => p !== undefined) : [],
    ),
  );
  if (targets.every((t) => labPorts.has(t.port)) && fs.existsSync(status.datasetPath)) return status.datasetPath;
  throw new UserError('--dataset FILE is required (only a lab server defaults to the lab dataset)');
}

/** The plan's servers, dataset and CA resolved: the runner's options (files are read here, nothing is written). */
async function optionsFromPlan(a: Argv, plan: LoadPlan): Promise<{ opts: LoadOptions; datasetFile: string; datasetHash: string }> {
  const { targets, labCaFile } = await resolveTargets(a);
  const rest = targets.find((t) => !transportOf(t).bindsSourceAddresses);
  if (rest && a['source-addresses'] !== undefined) throw new UserError(`--source-addresses spreads Electrum connections; ${rest.name} is Esplora's REST API (drop one of the two)`);
  const caFile = a.ca ?? labCaFile;
  const file = await datasetPath(a, targets);
  claimInput(file, '--dataset');
  const dataset = readDataset(file);
  const lines = linesOfShard(dataset.lines, plan.shard);
  if (lines.length === 0) throw new UserError(`--dataset ${file}: no address for this shard`);
  const { shard } = plan;
  return {
    opts: {
      servers: targets,
      lines,
      mix: plan.mix,
      model: plan.model,
      durationMs: plan.durationMs,
      connections: plan.connections,
      pipeline: plan.pipeline,
      timeoutMs: plan.timeoutMs,
      maxLineBytes: plan.maxLineBytes,
      tlsInsecure: a['tls-insecure'],
      ca: caFile ? readCa(caFile) : undefined,
      seed: shard ? `${a.seed}:shard:${shard.index}/${shard.count}` : a.seed,
      sourceAddresses: plan.sourceAddresses,
      shard,
      startAtMs: plan.startAtMs,
      samples: a.samples,
    },
    datasetFile: file,
    datasetHash: dataset.hash,
  };
}

/** `load merge A.sqlite B.sqlite … --db ALL.sqlite`: one run from the shards of a test. */
async function merge(argv: string[]): Promise<number> {
  const a = await yargs(argv)
    .scriptName('npm run load -- merge')
    .usage('$0 SHARD.sqlite SHARD.sqlite ... --db ALL.sqlite')
    .option('db', { type: 'string', demandOption: true, describe: 'database to write the merged run into' })
    .option('threshold', { type: 'string', array: true, describe: 'k6-style criterion judged on the merged run (the whole test); exit 99 when one fails' })
    .strictOptions()
    .fail((msg, err) => {
      throw err ?? new UserError(msg);
    })
    .help()
    .parseAsync();
  const inputs = a._.map(String);
  const thresholds = a.threshold ?? [];
  const problems: string[] = [];
  for (const t of thresholds) collecting(problems)(() => parseThreshold(t));
  if (problems.length) throw new UserError(problems.join('; '));
  for (const input of inputs) claimInput(input, 'shard database');
  claimDatabase(a.db);
  const created = fileAboutToBeCreated(a.db);
  try {
    const merged = mergeShards(inputs, a.db, { thresholds, onNote: (note) => process.stderr.write(`electrum-bench: note: ${note}\n`) });
    const { runId, status } = merged;
    const verdicts = isWalletMerge(merged) ? [] : merged.thresholds;
    const run = isWalletMerge(merged) ? `wallet load run ${runId} of ${a.db} (${status}); report it with: npm run report -- --db ${a.db} --wallet-run ${runId}` : `load run ${runId} of ${a.db} (${merged.intervals} intervals, ${status}); report it with: npm run report -- --db ${a.db} --load-run ${runId}`;
    process.stdout.write(`merged ${inputs.length} shards into ${run}\n`);
    if (verdicts.length) process.stdout.write(`\n${formatThresholdResults(verdicts)}\n`);
    return verdicts.some((t) => !t.pass) ? 99 : 0;
  } catch (err) {
    created?.remove();
    throw err;
  }
}

/** `load hlog --db FILE [--run ID] --out FILE.hlog [--method M]`: HdrHistogram interval log. */
async function hlog(argv: string[]): Promise<number> {
  const y = yargs(argv);
  const a = await refusingMistakes(
    y
      .scriptName('npm run load -- hlog')
      .option('db', { type: 'string', default: 'results/load.sqlite', describe: 'results database' })
      .option('run', { type: 'number', describe: 'load run (default: the latest)' })
      .option('out', { type: 'string', demandOption: true, describe: '.hlog file to write' })
      .option('method', { type: 'string', describe: 'only this method (balance, history, utxos)' }),
    argv,
  )
    .parseAsync();
  claimInput(a.db, '--db');
  claimOutputFile(a.out, '--out');
  const results = ResultsStore.open(a.db, { readonly: true });
  try {
    const store = new LoadStore(results);
    const latest = store.runs().at(-1);
    const runId = a.run === undefined ? latest?.id : (store.resolve(a.run) ?? a.run);
    if (runId === undefined) throw new UserError(`--db ${a.db} holds no load run`);
    const { intervals } = writeHlog(store, runId, a.out, { method: a.method });
    process.stdout.write(`wrote ${intervals} intervals of load run ${a.run ?? latest?.number} to ${a.out}\n`);
    return 0;
  } finally {
    results.close();
  }
}

/**
 * The end of a coordinated shard: called off → the reason in one line, exit 2; shards 2..N hand over their
 * database and print their own part; shard 1 merges every shard's and prints the whole test.
 */
async function finishCoordinated(
  a: Argv,
  plan: LoadPlan,
  test: CoordinatedShard,
  own: { runner: LoadRunner; summaries: ReturnType<typeof summarise>[]; runId: number; status: string },
): Promise<number> {
  const shard = plan.shard!;
  const calledOff = own.runner.aborted;
  if (calledOff) throw new UserError(`shard ${formatShard(shard)}: ${calledOff}; nothing was merged`);
  // In-flight requests drain for at most the timeout after a schedule ends: beyond that (and the
  // time to register) a shard's results are not coming.
  const resultsTimeoutMs = plan.readyTimeoutMs + plan.timeoutMs + 30_000;
  if (test.shardLink) {
    await sendResults(test, shard, resultsTimeoutMs);
    const text = `shard ${formatShard(shard)}'s own part of the test (the coordinator, shard 1, prints the whole):\n` + summaryText(own.summaries, own.runId, 'the coordinator');
    process.stdout.write((a.json ? JSON.stringify({ shard: formatShard(shard), status: own.status, servers: own.summaries }, null, 2) : text) + '\n');
    return own.status === 'interrupted' ? 130 : 0;
  }
  const created = fileAboutToBeCreated(a.db);
  let merged: Awaited<ReturnType<typeof mergeTest>>;
  try {
    merged = await mergeTest(test, shard, a.db, plan.thresholds, resultsTimeoutMs);
  } catch (err) {
    created?.remove();
    throw err;
  }
  if (a['summary-export']) writeFileAtomic(a['summary-export'], JSON.stringify(merged.json, null, 2) + '\n', { mkdir: true });
  process.stdout.write((a.json ? JSON.stringify(merged.json, null, 2) : merged.text) + '\n');
  if (merged.thresholds.some((t) => !t.pass)) return 99;
  return merged.status === 'interrupted' ? 130 : 0;
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return merge(argv.slice(1));
  if (argv[0] === 'hlog') return hlog(argv.slice(1));
  const a = await loadArgs(argv).parseAsync();
  // A coordinated test's shards other than 1 write no --db: their run goes to the coordinator.
  const writesDb = a.coordinator === undefined || a.shard === undefined || shardIndexOf(a.shard) === 1;
  if (writesDb) claimDatabase(a.db);
  if (a['summary-export'] !== undefined && writesDb) claimOutputFile(a['summary-export'], '--summary-export');
  if (a.workload !== undefined) return walletLoad({ ...a, workload: a.workload }, argv);
  refuseWalletOptions(argv);
  const plan = loadPlan(withPodAddress(a));
  // Claimed before any work, as --db is; the dashboard's port too.
  const outputs = await openWatchers(plan, dashboardTitle(a, plan));
  try {
    return await coordinatedOrNot(a, plan, outputs);
  } finally {
    // A run that ended early never reached the outputs' end: a page's server must not hold the process.
    await outputs.close();
  }
}

async function coordinatedOrNot(a: Argv, plan: LoadPlan, outputs: OutputSet): Promise<number> {
  // First of all the test's shards meet, so that one which cannot go on fails the whole test at once.
  // Registering and waiting for the other shards may take up to --ready-timeout: a stop then ends
  // this shard at once, and the others learn it from the coordinator or its closed connection.
  const meet = plan.coordinator && { address: plan.coordinator, shard: plan.shard!, readyTimeoutMs: plan.readyTimeoutMs };
  return asShard(meet, a, (test, handOver) => runLoad(a, plan, outputs, test, handOver));
}

/** What the dashboard's header names: the model, in its executor's words, and the servers, as given. */
function dashboardTitle(a: Argv, plan: LoadPlan): string {
  const model = plan.findMax ? 'find-max' : executorFor(plan.model).describe(plan.model);
  return `load (${model}) on ${(a.server ?? []).map(String).join(', ') || 'the servers'}`;
}

/** The I of --shard I/N; undefined when it does not parse (the plan reports that). */
function shardIndexOf(text: string): number | undefined {
  try {
    return parseShard(text).index;
  } catch {
    return undefined;
  }
}

/**
 * `ELECTRUM_BENCH_SOURCE_ADDRESS`: the loopback address all of this process's Electrum connections
 * come from, unless --source-addresses says otherwise. `cluster simulate` sets it to stand for
 * each pod's own IP; a real pod has its own and needs none.
 */
function withPodAddress<T extends { 'source-addresses'?: string }>(a: T): T {
  const own = process.env.ELECTRUM_BENCH_SOURCE_ADDRESS;
  return own && a['source-addresses'] === undefined ? { ...a, 'source-addresses': own } : a;
}

async function runLoad(a: Argv, plan: LoadPlan, outputs: OutputSet, test: CoordinatedShard | undefined, handOver: () => void): Promise<number> {
  const { thresholds, findMax: search } = plan;
  const { opts, datasetFile, datasetHash } = await optionsFromPlan(a, plan);
  checkTurns(plan, opts.servers.map((t) => t.name));
  // A coordinated test is judged once, on the merged run, by its coordinator.
  const tracker = thresholds.length && !test ? createThresholdTracker(thresholds, { servers: opts.servers.map((t) => t.name) }) : undefined;
  if (opts.tlsInsecure && opts.servers.some((t) => t.tls)) process.stderr.write('electrum-bench: warning: --tls-insecure: server certificates are not verified\n');
  await ensureReachable(opts.servers, opts, expectedNetwork(datasetFile, opts.lines));
  const resources = await resourceTargets(a);
  await test?.coordinator?.awaitShards(Math.max(0, test.readyBy - Date.now()), plan.readyTimeoutMs);
  if (test) opts.rendezvous = (server) => test.link.rendezvous(server);
  // Pinned once every input is checked, before the first thread the run starts (they inherit it).
  const cpus = plan.cpus ? pinGenerator(plan.cpus) : undefined;

  const dbFile = test ? test.database : a.db;
  const created = fileAboutToBeCreated(dbFile);
  const results = ResultsStore.open(dbFile);
  const store = new LoadStore(results);
  const runner = new LoadRunner(opts);
  handOver();
  onStopSignal(() => {
    runner.stop();
    // A coordinator's stop is the test's: the shards end too, and their part is merged.
    test?.coordinator?.stopAll();
  });
  if (test) {
    test.shardLink?.onStop(() => runner.stop());
    runner.on('schedule-start', ({ server, epochMs }: { server: string; epochMs: number }) => test.link.started(server, epochMs));
    const callOff = (reason: string) => runner.abort(`the coordinated test was called off: ${reason}`);
    test.shardLink?.onAbort(callOff);
    test.coordinator?.onFailure((reason) => {
      callOff(reason);
      test.coordinator!.abort(reason);
    });
  }
  const tool = toolInfo();
  const { ca: _ca, lines: _lines, ...config } = opts;
  let runId: number;
  let serverIds: Map<string, number>;
  try {
    ({ runId, serverIds } = store.createRun(
      { tool_version: tool.version, git_commit: tool.gitCommit, config: { ...config, thresholds, dataset: datasetFile, cpus, ...turnsConfig(plan), test: opts.shard && testIdentity(a, opts.servers, datasetHash) }, model: opts.model, model_text: executorFor(opts.model).describe(opts.model), dataset_path: datasetFile, dataset_hash: datasetHash, shard: opts.shard ? `${opts.shard.index}/${opts.shard.count}` : null },
      opts.servers.map((t) => ({ name: t.name, profile: t.profile, url: targetUrl(t), software: null, protocol: null })),
    ));
  } catch (err) {
    results.close();
    created?.remove();
    throw err;
  }
  outputs.start({ run: runId, shard: opts.shard ? formatShard(opts.shard) : null });

  runner.on('interval', ({ server, record, live, samples, step }: { server: string; record: IntervalRecord; live: LiveCounts; samples: Parameters<LoadStore['addSamples']>[2]; step: number | null }) => {
    const serverId = serverIds.get(server)!;
    store.addInterval(runId, serverId, record, step);
    if (samples.length) store.addSamples(runId, serverId, samples);
    tracker?.observe(record);
    const judged = tracker && !outputs.empty ? { thresholds: tracker.results() } : undefined;
    outputs.interval(record, judged);
    const abort = tracker?.shouldAbort();
    if (abort) runner.abort(`threshold ${abort.threshold} failed on ${abort.server} (abortOnFail)`);
    if (a.progress) process.stderr.write(intervalLine(record, live) + '\n');
  });

  const sampling = resources.length ? startSampling(results.db, 'load', runId, resources, a['sample-every']) : undefined;
  const serverDone = (target: { name: string }, r: { software: string | null; protocol: string | null }) => store.setServerInfo(serverIds.get(target.name)!, r.software, r.protocol);
  const done = plan.turnMs
    ? await serversInTurns(runner, opts.servers, { totalMs: plan.durationMs, turnMs: plan.turnMs }, { server: serverDone })
    : await serversInTurn(runner, opts.servers, search, { step: (target, s) => process.stderr.write(stepLine(target, s, search!) + '\n'), server: serverDone });
  const { results: outcomes, failure } = done;
  const searches = 'searches' in done ? done.searches : [];
  // A search's figure is about the server only if the two did not share CPUs: each says where they ran.
  for (const f of searches) f.pinning = pinningText(cpus, resources.filter((t) => (t.servers ?? [t.name]).includes(f.server)));
  // Per request only for a single profile per server: a search's steps are not all kept here.
  const costs = await sampling?.stop(search ? new Map() : new Map(outcomes.map((o) => [o.server, o.totals.sent])));
  const summaries = outcomes.map(summarise);
  // An A/B run's verdicts, from its seconds as stored, go with each judged server's outcomes.
  const ab = plan.baseline !== undefined && !failure ? loadAbVerdicts(results, runId, plan.failOnRegressionPct) : undefined;
  for (const s of summaries) store.setServerOutcome(serverIds.get(s.server)!, { ...storedOutcome(s), ...(ab?.byServer.has(s.server) ? { abVerdicts: ab.byServer.get(s.server) } : {}) });
  const thresholdResults = tracker?.results() ?? [];
  const status = failure ? 'failed' : runner.aborted ? 'aborted' : runner.stopped ? 'interrupted' : 'completed';
  store.finishRun(runId, {
    status,
    generatorBound: outcomes.some((o) => o.generator.bound),
    generator: Object.fromEntries(outcomes.map((o) => [o.server, o.generator])),
    thresholds: thresholdResults,
    findMax: search ? searches : undefined,
  });
  results.close();
  if (failure) throw failure;
  if (status === 'interrupted' && outcomes.length === 0) {
    // Stopped while the first server's connections opened: nothing was measured.
    if (created) created.remove();
    const kept = created ? 'nothing was written' : `run ${runId} is recorded in ${a.db} as interrupted, with no results`;
    process.stderr.write(`electrum-bench: stopped before the first request; ${kept}
`);
    return 130;
  }

  await outputs.end({ runId, status, servers: summaries, findMax: search ? searches : undefined, thresholds: thresholdResults, aborted: runner.aborted });
  if (test) return finishCoordinated(a, plan, test, { runner, summaries, runId, status });

  const turns = plan.turnMs !== undefined ? { turnMs: plan.turnMs, baseline: plan.baseline, verdicts: ab ? [...ab.byServer.values()].flat() : undefined } : undefined;
  const json = { runId, db: a.db, status, model: search ? 'find-max' : opts.model, servers: summaries, findMax: search ? searches : undefined, thresholds: thresholdResults, aborted: runner.aborted, interleaved: turns };
  if (a['summary-export']) writeFileAtomic(a['summary-export'], JSON.stringify(json, null, 2) + '\n', { mkdir: true });
  const text = search
    ? searches.map((f) => `${f.statement}\n  (${f.pinning})`).join('\n') + '\n\n(the summary below is of each server\'s last step)\n' + summaryText(summaries, runId, a.db)
    : (plan.turnMs !== undefined ? turnsLine(plan.turnMs, plan.durationMs, opts.servers.map((t) => t.name)) + '\n' : '') + summaryText(summaries, runId, a.db);
  process.stdout.write((a.json ? JSON.stringify(json, null, 2) : text + (tracker ? '\n\n' + tracker.format() : '') + (costs ? `\n\n${costs}` : '') + (ab ? `\n\n${ab.text}` : '')) + '\n');
  if (runner.aborted) process.stderr.write(`run ${runId} aborted: ${runner.aborted}\n`);
  if (thresholdResults.some((t) => !t.pass)) return 99;
  if (status === 'completed' && ab?.regressed.length) {
    process.stderr.write(`regression beyond ${plan.failOnRegressionPct} %: ${ab.regressed.join('; ')}\n`);
    return 99;
  }
  if (status === 'interrupted') return 130;
  return 0;
}

if (require.main === module) runCli(main);
