/**
 * `electrum-bench load`: drive Electrum servers at a set arrival rate (open model) or with a set
 * number of virtual clients (closed model), one server after another, recording HdrHistograms per
 * second into the results database; k6-style thresholds decide the exit code (99 when one fails).
 * Options are validated and completed here, before any connection is made.
 */
import yargs from 'yargs';
import { runCli } from './run-cli';
import { configFileParser } from './declared-options';
import { claimInput, claimOutputFile } from '../core/output-path';
import { resolveTargets } from './server-targets';
import { readCa } from '../core/ca-file';
import { labDatasetFor } from './lab-targets';
import { transportOf } from '../transports/registry';
import { resourceTargets, withResourceOptions } from './resource-targets';
import { DEFAULT_MAX_LINE_BYTES } from '../electrum/client';
import { readDataset } from '../dataset/line';
import { ResultsStore } from '../store/results';
import { UserError } from '../core/user-error';
import { checkTurns } from './load-ab';
import { LoadStore } from '../store/load-results';
import { CHOOSABLE, executorFor, executorOptions } from '../engine/executors/registry';
import { withWatchOptions } from './watch-options';
import { formatThresholdResults, parseThreshold } from '../load/thresholds';
import { isWalletMerge, mergeSession } from '../runs/merge';
import { writeHlog } from '../load/hlog';
import { linesOfShard } from '../core/shard';
import { WORKLOAD_NAMES } from '../wallet/workloads';
import { refuseWalletOptions, walletLoad } from './wallet-load';
import { collecting, refusingMistakes } from './validate';
import { loadPlan, withModelOptions, type LoadPlan } from './load-plan';
import { loadSession, type LoadRun } from '../runs/kinds/load';
import { printLoad } from './print-load';
import { DEFAULT_LIMITS_DB, limitsOf } from './server-limits';

export function loadArgs(argv: string[]) {
  const y = yargs(argv);
  const targets = withWatchOptions(withResourceOptions(y))
    .scriptName('npm run load --')
    .usage(`$0 --server PROFILE[@HOST:PORT] ... [--dataset FILE] (${CHOOSABLE.map((e) => e.choice.usage).join(' | ')}) [options]\n$0 merge SHARD.sqlite ... --db ALL.sqlite\n$0 hlog --db FILE [--run ID] --out FILE.hlog`)
    .option('server', { type: 'string', array: true, describe: 'server to load: [LABEL=]PROFILE[@[ssl://|ws://|wss://]HOST[:PORT]] (repeatable; one after another)' })
    .option('host', { type: 'string', describe: 'host for a --server given without one' })
    .option('port', { type: 'number', describe: 'port for a --server given without one' })
    .option('tls', { type: 'boolean', default: false, describe: 'use TLS for --server given without a scheme' })
    .option('tls-insecure', { type: 'boolean', default: false, describe: 'accept any TLS certificate (self-signed servers)' })
    .option('ca', { type: 'string', describe: 'PEM file of extra CA certificates to trust' })
    .option('lab', { type: 'boolean', default: false, describe: 'load every Electrum server of the running lab' })
    .option('websocket', { type: 'boolean', default: false, describe: "with --lab: the lab servers' WebSocket listeners too (ws:// and wss://; wss:// only with --tls)" })
    .option('dataset', { type: 'string', describe: "JSONL dataset of addresses (default with a lab server: the lab's dataset)" })
    .option('mix', { type: 'string', default: 'balance=40,history=40,utxos=20', describe: 'request mix: METHOD=WEIGHT,...' });
  // Each executor's options (--rate, --vus, ...) as it declares them (src/engine/executors/).
  return refusingMistakes(
    withModelOptions(targets)
      .option('connections', { type: 'number', describe: 'sockets per server (default 8; --vus: one per client)' })
      .option('pipeline', { type: 'number', default: 16, describe: 'open model: requests in flight per socket; beyond, requests are dropped' })
      .option('timeout', { type: 'number', default: 10, describe: 'seconds before a request counts as a timeout' })
      .option('max-line-bytes', { type: 'number', default: DEFAULT_MAX_LINE_BYTES, describe: 'largest response line accepted (over REST: response body)' })
      .option('db', { type: 'string', default: 'results/load.sqlite', describe: 'results database (SQLite)' })
      .option('threshold', { type: 'string', array: true, describe: 'k6-style pass/fail criterion, e.g. "latency:p(99)<250" (repeatable)' })
      .option('json', { type: 'boolean', default: false, describe: 'print the summary as JSON' })
      .option('ignore-unanswered', { type: 'boolean', default: false, describe: 'exit 0 even when a server answered none of its requests, or took no connection when its turn came (exit 3 otherwise)' })
      .option('strict-limits', { type: 'boolean', default: false, describe: "refuse (exit 2) a run over a server's known limit, before any connection, instead of warning" })
      .option('limits-db', { type: 'string', describe: `measured limits for the doctor: a database of \`npm run limits\` runs (default ${DEFAULT_LIMITS_DB} when it exists; read only)` })
      .option('summary-export', { type: 'string', describe: 'also write the summary as JSON to this file' })
      .option('samples', { type: 'boolean', default: false, describe: 'also store every request (memory and disk grow with the run)' })
      .option('shard', { type: 'string', describe: 'run shard I/N of a larger test: its share of the rate, connections and dataset' })
      .option('start-at', { type: 'number', describe: 'with --shard: start the schedule at this time (seconds since the epoch), the same for every shard' })
      .option('coordinator', { type: 'string', describe: 'with --shard: a coordinated test: shard 1 listens at HOST:PORT, starts every shard at once, merges their results into --db and judges --threshold on the whole' })
      .option('ready-timeout', { type: 'string', default: '60s', describe: 'with --coordinator: how long shards may take to register (and to find the coordinator)' })
      .option('cpu', { type: 'string', describe: 'run the generator on these CPUs only (a taskset list: 1, 2-3), recorded with the run; keep the servers off them (lab up --cpus)' })
      .option('realtime', { type: 'boolean', default: false, describe: 'run the generator at real-time priority (SCHED_FIFO; root or CAP_SYS_NICE), so a send due wakes on time on a busy machine; recorded with the run; not with --find-max' })
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
      .option('abuse', { type: 'string', describe: "--workload with arriving wallets: an abuse profile run beside them, PROFILE[:param=value,...]; the server's process sampled per phase (a lab server, or --server-pid), and with --notify a block mined in each phase (docs/abuse.md)" })
      .option('abuse-at', { type: 'string', default: '10s', describe: '--abuse: when it starts, into the arrivals' })
      .option('abuse-for', { type: 'string', default: '20s', describe: '--abuse: how long it runs' })
      .option('i-operate-this-server', { type: 'boolean', default: false, describe: '--abuse: you operate every --server (beyond loopback and the lab); recorded with the run' })
      .config('config', 'JSON file with any of these options', configFileParser(y))
      .group(['server', 'lab', 'websocket', 'host', 'port', 'tls', 'tls-insecure', 'ca', 'source-addresses'], 'Servers:')
      .group([...executorOptions().map(([name]) => name), 'duration'], 'Load model (give one):')
      .group(['dataset', 'mix', 'seed', 'connections', 'pipeline', 'timeout', 'max-line-bytes', 'samples'], 'Requests:')
      .group(['threshold', 'ignore-unanswered', 'strict-limits', 'limits-db'], 'Pass or fail:')
      .group(['interleave', 'baseline', 'fail-on-regression'], 'A/B in turns:')
      .group(['find-max', 'slo', 'max-error-rate', 'dwell', 'warmup', 'step-factor', 'max-rate', 'bisect-steps'], 'Find the max (--find-max):')
      .group(['workload', 'wallets', 'hold', 'hold-concurrency', 'wallet-max-txs', 'notify', 'blocks', 'pay-wallets', 'mine-via', 'rpc-cookie', 'notify-wait', 'natural-wait', 'slo-notify', 'max-hold'], 'Whole wallets (--workload):')
      .group(['abuse', 'abuse-at', 'abuse-for', 'i-operate-this-server'], 'Abuse beside the wallets (--workload):')
      .group(['shard', 'start-at', 'coordinator', 'ready-timeout', 'cpu', 'realtime'], 'Shards and the generator:')
      .group(['db', 'json', 'summary-export', 'progress', 'out', 'dashboard', 'dashboard-export', 'config'], 'Outputs:')
      .group(['server-pid', 'server-pidfile', 'server-datadir', 'metrics', 'sample-every', 'resources'], "Servers' resources:"),
    argv,
  );
}

type Argv = Awaited<ReturnType<ReturnType<typeof loadArgs>['parseAsync']>>;

/**
 * The plan with its servers, dataset (this shard's lines) and CA resolved, and its turns checked
 * against the servers: what the session runs. Files are read here, nothing is written.
 */
async function loadRunOf(a: Argv, plan: LoadPlan): Promise<LoadRun> {
  const { targets, labCaFile } = await resolveTargets(a);
  const rest = targets.find((t) => !transportOf(t).bindsSourceAddresses);
  if (rest && a['source-addresses'] !== undefined) throw new UserError(`--source-addresses spreads Electrum connections; ${rest.name} is Esplora's REST API (drop one of the two)`);
  checkTurns(plan, targets.map((t) => t.name));
  const caFile = a.ca ?? labCaFile;
  const file = a.dataset ?? (await labDatasetFor(targets));
  claimInput(file, '--dataset');
  const dataset = readDataset(file);
  const lines = linesOfShard(dataset.lines, plan.shard);
  if (lines.length === 0) throw new UserError(`--dataset ${file}: no address for this shard`);
  return {
    plan,
    servers: targets,
    lines,
    dataset: { file, hash: dataset.hash },
    tlsInsecure: a['tls-insecure'],
    ca: caFile ? readCa(caFile) : undefined,
    seed: a.seed,
    samples: a.samples,
    resources: await resourceTargets(a),
    sampleEveryS: a['sample-every'],
    progress: a.progress,
    db: a.db,
    summaryExport: a['summary-export'],
    ignoreUnanswered: a['ignore-unanswered'],
    testOptions: a as unknown as Record<string, unknown>,
    title: dashboardTitle(a, plan),
    limits: await limitsOf(targets, a['limits-db']),
    strictLimits: a['strict-limits'],
    log: (line) => process.stderr.write(line + '\n'),
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
  const { merged, code } = mergeSession(inputs, a.db, { thresholds, onNote: (note) => process.stderr.write(`electrum-bench: note: ${note}\n`) });
  const { runId, status } = merged;
  const verdicts = isWalletMerge(merged) ? [] : merged.thresholds;
  const run = isWalletMerge(merged) ? `wallet load run ${runId} of ${a.db} (${status}); report it with: npm run report -- --db ${a.db} --wallet-run ${runId}` : `load run ${runId} of ${a.db} (${merged.intervals} intervals, ${status}); report it with: npm run report -- --db ${a.db} --load-run ${runId}`;
  process.stdout.write(`merged ${inputs.length} shards into ${run}\n`);
  if (verdicts.length) process.stdout.write(`\n${formatThresholdResults(verdicts)}\n`);
  return code;
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

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return merge(argv.slice(1));
  if (argv[0] === 'hlog') return hlog(argv.slice(1));
  const a = await loadArgs(argv).parseAsync();
  if (a.workload !== undefined) return walletLoad({ ...a, workload: a.workload }, argv);
  refuseWalletOptions(argv);
  const plan = loadPlan(withPodAddress(a));
  const { outcome, code } = await loadSession(await loadRunOf(a, plan));
  printLoad(outcome, { json: a.json, log: (line) => process.stderr.write(line + '\n') }).forEach((t) => process.stdout.write(t + '\n'));
  return code;
}

/** What the dashboard's header names: the model, in its executor's words, and the servers, as given. */
function dashboardTitle(a: Argv, plan: LoadPlan): string {
  const model = plan.findMax ? 'find-max' : executorFor(plan.model).describe(plan.model);
  return `load (${model}) on ${(a.server ?? []).map(String).join(', ') || 'the servers'}`;
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

if (require.main === module) runCli(main);
