/**
 * `electrum-bench cluster render|simulate --shards N [options] -- load …ARGS`: one load test as a
 * Kubernetes Indexed Job of N coordinated shards. `render` prints the manifests (a v1 List for
 * `kubectl apply -f -`); `simulate` runs exactly those pods' commands as N local processes. The
 * load arguments are checked here as `load` checks them, before anything is printed or started.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yargs from 'yargs';
import { runCli } from './run-cli';
import { loadArgs } from './load';
import { loadPlan } from './load-plan';
import { walletLoadPlan } from './wallet-load';
import { onStopSignal } from '../runs/signals';
import { claimDatabase } from '../store/ownership';
import { claimOutputFile } from '../core/output-path';
import { UserError } from '../core/user-error';
import { refusingMistakes } from './validate';
import { CONFIG_DIR, DEFAULT_COORDINATOR_PORT, RESULTS_DIR, manifestList, renderManifests, type ClusterSpec } from '../cluster/render';
import { Simulation } from '../cluster/simulate';

/** `load` options naming files the run reads: carried in the ConfigMap. */
const INPUT_FILES = ['dataset', 'wallets', 'ca', 'config'];
/** `load` options naming files the run writes: under the results volume. */
const OUTPUT_FILES = ['db', 'summary-export'];
/** Set by the Job for each pod; not the user's to give. */
const SET_PER_POD = ['shard', 'coordinator', 'start-at'];
const DEFAULT_DB = 'results/load.sqlite';

const CLUSTER_USAGE = [
  'electrum-bench cluster render --shards N [options] -- load …ARGS     Kubernetes manifests of one load test as N coordinated shards (an Indexed Job)',
  'electrum-bench cluster simulate --shards N [options] -- load …ARGS   the same pods as local processes: one start, one merged run, one verdict',
].join('\n');

function clusterArgs(argv: string[]) {
  const y = yargs(argv);
  return refusingMistakes(
    y
      .scriptName('electrum-bench cluster')
      .usage('$0 render|simulate --shards N [options] -- load …ARGS')
      .parserConfiguration({ 'populate--': true })
      .option('shards', { type: 'number', demandOption: true, describe: 'shards (pods) of the test; each takes 1/N of the rate, connections and dataset' })
      .option('name', { type: 'string', default: 'electrum-bench', describe: 'name of the Job, Service and ConfigMap (a DNS label)' })
      .option('image', { type: 'string', default: 'electrum-bench:0.1.0', describe: 'container image of the toolkit (see Containerfile)' })
      .option('port', { type: 'number', default: DEFAULT_COORDINATOR_PORT, describe: "the coordinator's TCP port (shard 1's pod)" })
      .option('spread', { type: 'boolean', default: false, describe: 'each shard on a different node (required pod anti-affinity)' })
      .option('cpu-request', { type: 'string', default: '1', describe: "each pod's CPU request" })
      .option('memory-request', { type: 'string', default: '512Mi', describe: "each pod's memory request" })
      .option('results-claim', { type: 'string', describe: 'PersistentVolumeClaim (ReadWriteMany) mounted at /results, where shard 1 writes the merged --db' }),
    argv,
  );
}

/** `--name VALUE` / `--name=VALUE` in `argv`: each occurrence's value index, or of the `=` form. */
function occurrences(argv: string[], name: string): Array<{ at: number; inline: boolean }> {
  const out: Array<{ at: number; inline: boolean }> = [];
  argv.forEach((arg, i) => {
    if (arg === `--${name}` && i + 1 < argv.length) out.push({ at: i + 1, inline: false });
    else if (arg.startsWith(`--${name}=`)) out.push({ at: i, inline: true });
  });
  return out;
}

const valueAt = (argv: string[], o: { at: number; inline: boolean }): string => (o.inline ? argv[o.at].slice(argv[o.at].indexOf('=') + 1) : argv[o.at]);
function setValue(argv: string[], o: { at: number; inline: boolean }, value: string): void {
  argv[o.at] = o.inline ? `${argv[o.at].slice(0, argv[o.at].indexOf('=') + 1)}${value}` : value;
}

export interface PodRun {
  spec: ClusterSpec;
  /** Pod path of each output → the option and path the user gave (for simulate: where the results land). */
  outputs: Map<string, { option: string; file: string }>;
}

/** The load arguments checked as `load` checks them, then rewritten for the pod. */
async function podRun(c: Awaited<ReturnType<ReturnType<typeof clusterArgs>['parseAsync']>>): Promise<PodRun> {
  const rest = ((c['--'] ?? []) as Array<string | number>).map(String);
  if (rest[0] !== 'load') throw new UserError('cluster: give the test after "--", starting with load: cluster render --shards N -- load --server … --rate …');
  const argv = rest.slice(1);
  for (const name of SET_PER_POD) if (occurrences(argv, name).length) throw new UserError(`cluster: --${name} is set for each pod by the Job; leave it out`);
  const a = await loadArgs(argv).parseAsync();
  // Every problem with the test found here, as `load` would find it in each pod.
  const asShard = { shard: `1/${c.shards}`, coordinator: `${c.name}-0.${c.name}:${c.port}` };
  if (a.workload !== undefined) {
    walletLoadPlan({ ...a, workload: a.workload, ...asShard }, argv);
    if (a.wallets === undefined) throw new UserError('cluster: give --wallets FILE: its wallets go into the ConfigMap the pods read');
  } else {
    loadPlan({ ...a, ...asShard });
    if (a.dataset === undefined) throw new UserError('cluster: give --dataset FILE: its lines go into the ConfigMap the pods read');
  }

  for (const o of a.out ?? []) {
    const url = /^prometheus-rw=(.*)$/.exec(o)?.[1];
    if (url && /^[a-z]+:\/\/[^/]*@/i.test(url)) throw new UserError('cluster: --out prometheus-rw=URL holds a user or password, which the manifest would show to anyone who can read the Job; give them to the pods as ELECTRUM_BENCH_PROMETHEUS_RW_USERNAME / _PASSWORD from a Secret');
  }
  const podArgv = [...argv];
  const files: Record<string, string> = {};
  for (const name of INPUT_FILES) {
    for (const o of occurrences(podArgv, name)) {
      const file = valueAt(podArgv, o);
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        throw new UserError(`--${name} ${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      let key = path.basename(file).replace(/[^-._a-zA-Z0-9]/g, '_');
      while (files[key] !== undefined) key = `_${key}`;
      files[key] = text;
      setValue(podArgv, o, `${CONFIG_DIR}/${key}`);
    }
  }
  const outputs: PodRun['outputs'] = new Map();
  for (const name of OUTPUT_FILES) {
    const given = occurrences(podArgv, name);
    if (given.length === 0 && name === 'db') {
      podArgv.push('--db', `${RESULTS_DIR}/${path.basename(DEFAULT_DB)}`);
      outputs.set(`${RESULTS_DIR}/${path.basename(DEFAULT_DB)}`, { option: name, file: DEFAULT_DB });
    }
    for (const o of given) {
      const file = valueAt(podArgv, o);
      const podPath = `${RESULTS_DIR}/${path.basename(file)}`;
      if (outputs.has(podPath)) throw new UserError(`cluster: --db and --summary-export would both be ${podPath} in the pod: give them different file names`);
      outputs.set(podPath, { option: name, file });
      setValue(podArgv, o, podPath);
    }
  }
  return {
    spec: {
      name: c.name,
      image: c.image,
      shards: c.shards,
      loadArgs: podArgv,
      files,
      port: c.port,
      spread: c.spread,
      cpuRequest: c['cpu-request'],
      memoryRequest: c['memory-request'],
      resultsClaim: c['results-claim'],
    },
    outputs,
  };
}

async function render(argv: string[]): Promise<number> {
  const c = await clusterArgs(argv).parseAsync();
  const { spec } = await podRun(c);
  const objects = renderManifests(spec);
  if (spec.loadArgs.includes('--lab')) process.stderr.write('electrum-bench: warning: --lab names servers on this machine; pods will not reach them\n');
  process.stdout.write(manifestList(objects));
  return 0;
}

async function simulate(argv: string[]): Promise<number> {
  const c = await clusterArgs(argv).parseAsync();
  const { spec, outputs } = await podRun(c);
  const objects = renderManifests(spec);
  // Claimed before any pod starts: shard 1 writes them.
  for (const { option, file } of outputs.values()) {
    if (option === 'db') claimDatabase(file);
    else claimOutputFile(file, `--${option}`);
  }
  const dirs = new Set([...outputs.values()].map((o) => path.dirname(path.resolve(o.file))));
  if (dirs.size > 1) throw new UserError(`cluster simulate: --db and --summary-export stand for one results volume: put them in one directory (got ${[...dirs].join(', ')})`);
  const resultsDir = [...dirs][0];
  fs.mkdirSync(resultsDir, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `electrum-bench-cluster-${spec.name}-`));
  const simulation = new Simulation({
    objects,
    workDir,
    resultsDir,
    launcher: path.resolve(__dirname, '..', '..', 'bin', 'electrum-bench.js'),
    out: process.stdout,
    log: process.stderr,
  });
  // A second Ctrl-C reaches the pods too: each then exits at once, as we do.
  onStopSignal((signal) => simulation.stop(signal), () => simulation.stop('SIGINT'));
  process.stderr.write(`electrum-bench: simulating Job ${spec.name}: ${spec.shards} pods as local processes from 127.0.0.2 on; shard 1 (pod 0) coordinates\n`);
  try {
    const exits = await simulation.run();
    const failed = exits.filter((e) => e.code !== 0);
    for (const e of failed) process.stderr.write(`electrum-bench: pod ${spec.name}-${e.index} exited ${e.code}\n`);
    // The Job fails when any pod fails; shard 1's code is the test's verdict (99: a threshold failed).
    const own = exits[0].code;
    return own !== 0 ? own : failed.length ? failed[0].code : 0;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'render') return render(argv.slice(1));
  if (argv[0] === 'simulate') return simulate(argv.slice(1));
  if (argv[0] === '--help' || argv[0] === '-h') {
    // The options are both subcommands'.
    process.stdout.write(`${CLUSTER_USAGE}\n\n${await clusterArgs([]).getHelp()}\n`);
    return 0;
  }
  throw new UserError(`cluster: expected render or simulate, got ${argv[0] === undefined ? 'nothing' : JSON.stringify(argv[0])}`);
}

if (require.main === module) runCli(main);
