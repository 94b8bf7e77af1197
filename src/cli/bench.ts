/**
 * `electrum-bench bench`: measure balance / history / UTXO latency of one or more servers.
 * Options are validated and completed here, before any connection is made.
 */
import fs from 'node:fs';
import yargs from 'yargs';
import { runCli } from './run-cli';
import { configFileParser } from './declared-options';
import { refuseForeignDatabase } from '../store/ownership';
import { claimInput } from '../core/output-path';
import type { BenchOptions } from '../bench/runner';
import { CALL_ORDERS, isCallOrder } from '../bench/order';
import { BENCH_METHOD_NAMES, METHOD_NAMES, isBenchMethodName, isWalletCallName, type BenchMethodName } from '../bench/methods';
import { walletSubjects } from '../bench/wallet-subjects';
import { readChainFacts } from '../dataset/chain-facts';
import type { LoadedDataset } from '../core/dataset-line';
import { attachProgress } from '../bench/progress';
import { electrumTargets, resolveTargets } from './server-targets';
import { readCa } from '../core/ca-file';
import { labColdStart, labDatasetFor, labServersAmong } from './lab-targets';
import { coldPlanProblem, type ColdStart } from '../bench/cold-passes';
import { dropPageCache, pageCacheDropProblem } from '../resources/page-cache';
import { targetUrl } from '../servers/targets';
import { ResultsStore } from '../store/results';
import { DEFAULT_MAX_LINE_BYTES } from '../electrum/client';
import { UserError } from '../core/user-error';
import { readDataset } from '../dataset/line';
import { resourceTargets, SERVER_SAMPLING_FLAGS, withResourceOptions } from './resource-targets';
import { parseParamSweep } from './param-sweep';
import type { Sweep } from '../engine/sweep';
import { WORKLOAD_NAMES } from '../wallet/workloads';
import { walletBench } from './wallet-bench';
import { DEFAULT_LIMITS_DB } from './server-limits';
import { watched, watchPlan, withWatchOptions, WATCH_FLAGS } from './watch-options';
import { baselineProblems, checkedPlan, refusingMistakes, regressionGateProblems, timeoutSeconds } from './validate';
import { benchSession } from '../runs/kinds/bench';
import { printBench } from './print-bench';

export function benchArgs(argv: string[]) {
  const y = yargs(argv);
  return refusingMistakes(
    withWatchOptions(withResourceOptions(y))
      .scriptName('npm run bench --')
      .usage('$0 --server PROFILE[@HOST:PORT] ... --dataset FILE [options]')
      .option('server', { type: 'string', array: true, describe: 'server to measure: [LABEL=]PROFILE[@[ssl://|ws://|wss://]HOST[:PORT]] (repeatable)' })
      .option('host', { type: 'string', describe: 'host for a --server given without one' })
      .option('port', { type: 'number', describe: 'port for a --server given without one' })
      .option('tls', { type: 'boolean', default: false, describe: 'use TLS for --server given without a scheme' })
      .option('tls-insecure', { type: 'boolean', default: false, describe: 'accept any TLS certificate (self-signed servers)' })
      .option('ca', { type: 'string', describe: 'PEM file of extra CA certificates to trust' })
      .option('lab', { type: 'boolean', default: false, describe: "measure every Electrum server of the running lab" })
      .option('websocket', { type: 'boolean', default: false, describe: "with --lab: the lab servers' WebSocket listeners too (ws:// and wss://; wss:// only with --tls)" })
      .option('dataset', { type: 'string', describe: "JSONL dataset of addresses (default with lab servers: the lab's dataset)" })
      .option('methods', { type: 'string', default: METHOD_NAMES.join(','), describe: `comma-separated: ${BENCH_METHOD_NAMES.join(',')}` })
      .option('passes', { type: 'number', default: 10, describe: 'passes over the dataset, warm-up included' })
      .option('warmup', { type: 'number', default: 1, describe: 'leading passes stored but excluded from statistics' })
      .option('shuffle', { type: 'boolean', default: false, describe: 'a different seeded address order each pass' })
      .option('order', {
        type: 'string',
        default: 'address',
        describe: 'call order: address (per address every server and method, both rotating), method (one method at a time), shuffled',
      })
      .option('seed', { type: 'string', default: 'electrum-bench', describe: 'seed for --shuffle and --order shuffled' })
      .option('baseline', { type: 'string', describe: 'an A/B run: the server (A) every other is judged against, with a verdict per method, recorded with the run' })
      .option('fail-on-regression', { type: 'number', describe: 'with --baseline: exit 99 when a verdict is slower by more than this percent (results still written)' })
      .option('limit', { type: 'number', describe: 'only the first N dataset lines' })
      .option('concurrency', { type: 'number', default: 1, describe: 'requests in flight per server (1 = sequential)' })
      .option('timeout', { type: 'number', default: 30, describe: 'seconds before a call counts as a timeout' })
      .option('max-line-bytes', { type: 'number', default: DEFAULT_MAX_LINE_BYTES, describe: 'largest response line accepted (over REST: response body)' })
      .option('db', { type: 'string', default: 'results/bench.sqlite', describe: 'results database (SQLite)' })
      .option('verify', { type: 'boolean', default: false, describe: "compare every answer with the dataset's expected values" })
      .option('json', { type: 'boolean', default: false, describe: 'print the summary as JSON' })
      .option('ignore-unanswered', { type: 'boolean', default: false, describe: 'exit 0 even when a server answered none of its calls (exit 3 otherwise)' })
      .option('progress', { type: 'boolean', default: true, describe: 'progress bar on stderr (--no-progress to hide)' })
      .option('resume', { type: 'number', describe: 'continue an interrupted run of --db from where it stopped' })
      .option('cold', {
        type: 'boolean',
        default: false,
        describe: "lab servers, as root: drop the machine's OS page cache and restart the servers before each cold pass (counted passes alternate cold, warm)",
      })
      .option('param', { type: 'string', describe: 'sweep a setting of the one lab server measured: NAME=v1,v2 (one run per value)' })
      .option('workload', { type: 'string', describe: `sync whole wallets as a wallet does: ${WORKLOAD_NAMES.join(', ')} (with --wallets)` })
      .option('wallets', { type: 'string', describe: 'wallets JSONL file for --workload (e.g. datasets/regtest-lab-wallets.jsonl)' })
      .option('strict-limits', { type: 'boolean', default: false, describe: "--workload: refuse (exit 2) a run over a server's known limit, before any connection, instead of warning" })
      .option('limits-db', { type: 'string', describe: `--workload: measured limits for the doctor, a database of \`npm run limits\` runs (default ${DEFAULT_LIMITS_DB} when it exists; read only)` })
      .config('config', 'JSON file with any of these options (e.g. "server": [...])', configFileParser(y))
      .group(['server', 'lab', 'websocket', 'host', 'port', 'tls', 'tls-insecure', 'ca'], 'Servers:')
      .group(['dataset', 'methods', 'limit', 'verify', 'timeout', 'max-line-bytes'], 'Calls:')
      .group(['passes', 'warmup', 'concurrency', 'order', 'shuffle', 'seed', 'cold', 'resume'], 'Plan:')
      .group(['baseline', 'fail-on-regression', 'ignore-unanswered'], 'Pass or fail:')
      .group(['param'], 'Sweep a lab server setting:')
      .group(['workload', 'wallets', 'strict-limits', 'limits-db'], 'Whole wallets (--workload):')
      .group(['db', 'json', 'progress', 'out', 'dashboard', 'dashboard-export', 'config'], 'Outputs:')
      .group(['server-pid', 'server-pidfile', 'server-datadir', 'metrics', 'sample-every', 'resources'], "Servers' resources:"),
    argv,
  );
}

type Argv = Awaited<ReturnType<ReturnType<typeof benchArgs>['parseAsync']>>;

function positiveInt(name: string, v: number | undefined, min = 1): number {
  if (v === undefined || !Number.isInteger(v) || v < min) throw new UserError(`--${name} must be an integer >= ${min}, got ${v}`);
  return v;
}

export async function optionsFromArgs(a: Argv): Promise<BenchOptions> {
  const methods = [...new Set(a.methods.split(',').map((m) => m.trim()).filter(Boolean))];
  const bad = methods.filter((m) => !isBenchMethodName(m));
  if (bad.length || methods.length === 0) throw new UserError(`--methods: unknown ${bad.join(', ') || '(empty)'}; known: ${BENCH_METHOD_NAMES.join(', ')}`);
  const { passes, warmup, concurrency } = checkedPlan({ kind: 'sequential', passes: a.passes, warmup: a.warmup, concurrency: a.concurrency });
  const coldPlan = a.cold ? coldPlanProblem(passes, warmup) : null;
  if (coldPlan) throw new UserError(coldPlan);
  const timeoutMs = timeoutSeconds('--timeout', a.timeout);
  const resolved = await resolveTargets(a);
  const { labCaFile } = resolved;
  const walletCalls = methods.filter(isWalletCallName);
  // Esplora's REST API has other shapes for these (text hex, its own proof format): measured over Electrum only.
  const targets = walletCalls.length ? electrumTargets(resolved.targets, a.lab, `--methods ${walletCalls.join(',')} are calls of`) : resolved.targets;
  const datasetPath = a.dataset ?? (await labDatasetFor(targets));
  claimInput(datasetPath, '--dataset');
  // A lab server over TLS is verified against the lab's own CA unless the user names another.
  const caFile = a.ca ?? labCaFile;
  const ca = caFile ? readCa(caFile) : undefined;
  if (!isCallOrder(a.order)) throw new UserError(`--order: unknown ${JSON.stringify(a.order)}; known: ${CALL_ORDERS.join(', ')}`);
  checkBaseline(a.baseline, a['fail-on-regression'], targets.map((t) => t.name));
  return {
    servers: targets,
    datasetPath,
    methods: methods as BenchMethodName[],
    passes,
    warmup,
    shuffle: a.shuffle,
    order: a.order,
    seed: a.seed,
    limit: a.limit === undefined ? undefined : positiveInt('limit', a.limit),
    concurrency,
    timeoutMs,
    maxLineBytes: positiveInt('max-line-bytes', a['max-line-bytes'], 1024),
    tlsInsecure: a['tls-insecure'],
    caFile,
    ca,
    verify: a.verify,
    ...(a.baseline !== undefined ? { baseline: a.baseline } : {}),
    ...(a.cold ? { cold: true } : {}),
  };
}

function checkBaseline(baseline: string | undefined, failOn: number | undefined, names: string[]): void {
  const problems = [...baselineProblems(baseline, names), ...regressionGateProblems(baseline, failOn)];
  if (problems.length) throw new UserError(problems.join('; '));
}

/** Options a resumed run may still be given: they change the display, not the measurement. */
const RESUME_FLAGS = new Set(['resume', 'db', 'json', 'progress', 'no-progress', 'help', 'resources', 'no-resources', 'sample-every', 'fail-on-regression', 'ignore-unanswered', ...WATCH_FLAGS]);

/** A resumed run takes its options from the database, so nothing can silently differ. */
function optionsFromRun(runId: number, a: Argv, argv: string[]): BenchOptions {
  const extra = argv.filter((t) => t.startsWith('--')).map((t) => t.slice(2).split('=')[0]).filter((f) => !RESUME_FLAGS.has(f));
  if (extra.length) throw new UserError(`--resume takes its options from run ${runId}; drop --${extra.join(', --')}`);
  refuseForeignDatabase(a.db);
  const store = ResultsStore.open(a.db, { readonly: true });
  let run: ReturnType<ResultsStore['getRun']>;
  try {
    run = store.getRun(runId);
  } finally {
    store.close();
  }
  if (!run) throw new UserError(`--resume: no run ${runId} in ${a.db}`);
  const stored = JSON.parse(run.config_json) as BenchOptions;
  return { ...stored, ca: stored.caFile ? readCa(stored.caFile) : undefined };
}

export async function main(argv: string[]): Promise<number> {
  const a = await benchArgs(argv).parseAsync();
  const watchProblems: string[] = [];
  const watch = watchPlan(a, watchProblems);
  if (a.param !== undefined && watched(a)) watchProblems.push('--param makes one run per value: --dashboard and --out follow one run; watch each value\'s run on its own');
  if (watchProblems.length) throw new UserError(watchProblems.join('; '));
  if (a.cold) refuseColdWith(a);
  if (a.workload !== undefined) return walletBench({ ...a, workload: a.workload }, argv, watch);
  if (a.wallets !== undefined) throw new UserError('--wallets is for whole-wallet syncs: give --workload too (e.g. --workload electrum)');
  if (a['strict-limits']) throw new UserError('--strict-limits applies to whole-wallet syncs (--workload) and load: bench calls go one at a time');
  if (a['limits-db'] !== undefined) throw new UserError('--limits-db applies to whole-wallet syncs (--workload) and load: bench calls go one at a time');
  if (a.resume !== undefined) positiveInt('resume', a.resume);
  if (a.resume !== undefined && !fs.existsSync(a.db)) throw new UserError(`--resume: no results database at ${a.db}`);
  // Options are checked before the database is touched, so a bad flag leaves no file behind.
  const fresh = a.resume === undefined ? await optionsFromArgs(a) : undefined;
  const opts = fresh ?? optionsFromRun(a.resume!, a, argv);
  // A resumed cold run restarts its servers cold too: the same refusals as when it began.
  if (!fresh && opts.cold) refuseColdHere();
  // A resumed run's baseline is the stored one: --fail-on-regression needs it there.
  if (!fresh) checkBaseline(opts.baseline, a['fail-on-regression'], opts.servers.map((t) => t.name));
  const dataset = withChainFacts(readDataset(opts.datasetPath), opts);
  const log = (line: string) => process.stderr.write(line + '\n');
  return benchSession({
    opts,
    resume: a.resume,
    dataset,
    db: a.db,
    watch,
    title: fresh ? `bench, ${fresh.passes} passes, on ${fresh.servers.map((t) => t.name).join(', ')}` : `bench, run ${a.resume} resumed`,
    // A cold restart starts the servers' counters again from zero: a run's costs, read as its last
    // reading less its first, would mix processes (left for a sampler that follows restarts).
    resources: opts.cold ? [] : await resourceTargets(a),
    sampleEveryS: a['sample-every'],
    sweep: fresh ? await sweepOf(a, fresh) : null,
    coldStart: opts.cold ? await coldStartOf(opts) : undefined,
    failOnPct: a['fail-on-regression'],
    ignoreUnanswered: a['ignore-unanswered'],
    observe: a.progress ? attachProgress : undefined,
    print: (outcome) => printBench(outcome, { json: a.json, log }).forEach((t) => process.stdout.write(t + '\n')),
    log,
  });
}

/**
 * `--cold` empties the whole machine's page cache and restarts lab servers: refused, before any
 * work, where this process cannot (not root, /proc/sys/vm/drop_caches not writable) or with an
 * option it cannot go with.
 */
function refuseColdWith(a: Argv): void {
  if (a.workload !== undefined) throw new UserError('--cold is for the address bench: drop it with --workload');
  if (a.param !== undefined) throw new UserError('--cold and --param both restart the servers: give one of them');
  // A cold restart starts the servers' counters again from zero, so a cold run samples no resources.
  const sampling = SERVER_SAMPLING_FLAGS.filter((f) => a[f] !== undefined);
  if (sampling.length) throw new UserError(`--cold samples no server resources (each restart starts their counters again): drop --${sampling.join(', --')}`);
  refuseColdHere();
}

function refuseColdHere(): void {
  const problem = pageCacheDropProblem();
  if (problem) throw new UserError(`--cold: ${problem}`);
}

/** A cold restart under way: a stop ends the run without waiting for it, and the process then exits without waiting either. */
let coldRestarts = 0;

/** The measured servers made cold (src/bench/cold-passes.ts): stopped, the page cache dropped, started again on their index. */
async function coldStartOf(opts: BenchOptions): Promise<ColdStart> {
  const lab = await labColdStart(opts.servers, () => dropPageCache());
  return {
    processes: lab.processes,
    restart: async () => {
      coldRestarts++;
      try {
        await lab.restart();
      } finally {
        coldRestarts--;
      }
    },
  };
}

/**
 * The wallet calls ask for transactions and blocks of each address's history and are checked
 * against them: only a dataset whose manifest holds the chain facts (the lab's) can serve them,
 * and every address of the run must have a confirmed transaction.
 */
function withChainFacts(dataset: LoadedDataset, opts: BenchOptions): LoadedDataset {
  const walletCalls = opts.methods.filter(isWalletCallName);
  if (walletCalls.length === 0) return dataset;
  const chainFacts = readChainFacts(dataset);
  const asked = `--methods ${walletCalls.join(',')}`;
  if (!chainFacts) throw new UserError(`${asked}: ${dataset.path} has no manifest with each address's history and the block headers (the lab's dataset has them)`);
  try {
    walletSubjects(opts.limit !== undefined ? dataset.lines.slice(0, opts.limit) : dataset.lines, chainFacts);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`${asked}: ${err.message}`);
    throw err;
  }
  return { ...dataset, chainFacts };
}

/**
 * `--param NAME=v1,v2`: the one lab server measured is restarted with each value (an environment
 * variable for ElectrumX, a --flag for electrs and Esplora, a config key for Fulcrum). Only a
 * server the lab started, found by its address in the lab's status: a server given by host and
 * port that merely shares a lab server's profile name must never get the lab's server restarted.
 */
async function sweepOf(a: Argv, opts: BenchOptions): Promise<Sweep | null> {
  if (a.param === undefined) return null;
  const { name, values } = parseParamSweep(a.param);
  if (opts.servers.length !== 1) throw new UserError('--param sweeps a setting of one lab server: measure exactly one, e.g. --server fulcrum (with the lab up)');
  const { isLabServerName } = await import('../lab/servers/registry');
  const { labRestartServer } = await import('../lab/lab');
  const target = opts.servers[0];
  const server = (await labServersAmong([target])).servers.get(target.name);
  if (!server || !isLabServerName(server)) {
    throw new UserError(`--param restarts a lab server with each value, and ${target.name} (${targetUrl(target)}) is not one the lab started; measure a lab server, e.g. --server fulcrum with the lab up`);
  }
  return {
    server,
    name,
    values,
    restart: (settings: Record<string, string>) => labRestartServer(server, { settings }),
  };
}

// A stop keeps its 2 s during a cold restart: the lab's wait for its servers is not waited for.
if (require.main === module) runCli(main, { exit: () => coldRestarts > 0 });
