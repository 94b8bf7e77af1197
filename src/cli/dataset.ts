/**
 * `electrum-bench dataset build|addresses|filter|stats|wallets`: addresses from a node's block range, counted
 * through an Electrum server; the addresses a user names, counted through the server to measure; subsets of a dataset; its histogram; synthetic wallets made of it. Options are validated in
 * src/dataset/options.ts before anything is opened.
 */
import yargs, { Argv } from 'yargs';
import { runCli } from './run-cli';
import { onStopSignal } from '../runs/signals';
import { stoppedCode } from '../runs/exit-code';
import { UserError } from '../core/user-error';
import { addressesOptions, buildOptions, filterOptions, statsOptions, ENV_RPC_USER, ENV_RPC_PASSWORD } from '../dataset/options';
import { addressesOf, datasetFromAddresses } from '../dataset/from-addresses';
import { buildDataset, BuildInterrupted } from '../dataset/build';
import { BuildEvents } from '../dataset/events';
import { attachProgress } from '../dataset/progress';
import { filterDataset } from '../dataset/filter';
import { datasetStats, statsTable } from '../dataset/stats';
import { readDataset } from '../dataset/line';
import { removeTemporaries } from '../dataset/output';
import type { DatasetManifest } from '../dataset/manifest';
import { BUCKET_SCHEMES } from '../dataset/buckets';
import { ADDRESS_TYPES } from '../dataset/line';
import { syntheticWallets } from '../dataset/wallets';
import { walletsText } from '../dataset/wallet-file';
import { writeFileAtomic } from '../core/atomic-write';
import { claimInput, claimOutputFile } from '../core/output-path';
import { numbersAsTyped } from './validate';

function selectionOptions(y: Argv) {
  return y
    .option('min-txs', { type: 'string', describe: 'keep addresses with at least this many confirmed transactions (default 1)' })
    .option('max-txs', { type: 'string', describe: 'keep addresses with at most this many confirmed transactions' })
    .option('types', { type: 'string', describe: `only these script types, comma-separated: ${ADDRESS_TYPES.join(',')}` })
    .option('per-bucket', { type: 'string', describe: 'take at most N addresses per history-size bucket' })
    .option('buckets', { type: 'string', describe: `bucket scheme: ${BUCKET_SCHEMES.join('|')} (default log10)` })
    .option('seed', { type: 'string', describe: 'seed choosing which addresses --per-bucket keeps (default 1)' })
    .option('out', { type: 'string', describe: 'dataset to write (.jsonl); its manifest goes beside it' })
    .option('force', { type: 'boolean', default: false, describe: 'replace --out if it exists' });
}

/** The Electrum server a dataset is counted through (build and addresses). */
function countViaFlags<T>(y: Argv<T>) {
  return y
    .option('count-via', { type: 'string', describe: 'Electrum server: electrum://HOST:PORT or electrums://HOST:PORT (TLS)' })
    .option('tls-insecure', { type: 'boolean', default: false, describe: 'accept any TLS certificate from --count-via' })
    .option('ca', { type: 'string', describe: 'PEM file of extra CA certificates to trust for --count-via' })
    .option('count-profile', { type: 'string', describe: 'server profile for batch caps and errors (default: from server.version)' })
    .option('count-connections', { type: 'string', describe: 'connections to --count-via (default 4)' })
    .option('count-timeout', { type: 'string', describe: 'seconds per counting batch (default 60)' });
}

export function datasetArgs(argv: string[]) {
  return yargs(argv)
    .scriptName('npm run dataset --')
    .command('build', 'addresses funded in a block range, counted through an Electrum server', (y) =>
      countViaFlags(selectionOptions(y))
        .option('rpc', { type: 'string', describe: 'node JSON-RPC URL, e.g. http://127.0.0.1:8332' })
        .option('rpc-cookie', { type: 'string', describe: "node's .cookie file" })
        .option('rpc-user', { type: 'string', describe: `RPC user (or env ${ENV_RPC_USER})` })
        .option('rpc-password', { type: 'string', describe: `RPC password (prefer env ${ENV_RPC_PASSWORD}: the command line is visible to ps)` })
        .option('from', { type: 'string', describe: 'first block height' })
        .option('to', { type: 'string', describe: 'last block height (inclusive)' })
        .option('scan-concurrency', { type: 'string', describe: 'getblock requests in flight (default 3)' })
        .option('network', { type: 'string', describe: 'auto|mainnet|testnet|signet|regtest: must match the node (default auto)' })
        .option('progress', { type: 'boolean', default: true, describe: 'progress bars on stderr (--no-progress to hide)' }),
    )
    .command('addresses [address..]', 'a dataset of the addresses you name, counted through the Electrum server you will measure (no node needed)', (y) =>
      countViaFlags(y)
        .positional('address', { type: 'string', array: true, describe: 'addresses (of the network the server serves)' })
        .option('in', { type: 'string', describe: 'file of addresses, one per line (# comments)' })
        .option('out', { type: 'string', describe: 'dataset to write (.jsonl); its manifest goes beside it' })
        .option('force', { type: 'boolean', default: false, describe: 'replace --out if it exists' }),
    )
    .command('filter', 'a subset of a dataset, with a manifest naming its parent', (y) =>
      selectionOptions(y).option('in', { type: 'string', describe: 'dataset to filter' }),
    )
    .command('stats', 'history-size histogram of a dataset, by script type too', (y) =>
      y
        .option('in', { type: 'string', describe: 'dataset to describe' })
        .option('buckets', { type: 'string', describe: `bucket scheme: ${BUCKET_SCHEMES.join('|')} (default log10)` })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    )
    .command('wallets', 'synthetic wallets: a dataset\'s addresses grouped, padded with the unused scripts a gap-limit scan also queries', (y) =>
      y
        .option('in', { type: 'string', describe: 'dataset to group' })
        .option('size', { type: 'string', default: '20..200', describe: 'transactions per wallet, MIN..MAX (drawn log-uniformly)' })
        .option('count', { type: 'number', describe: 'wallets at most (default: as many as the dataset allows)' })
        .option('gap', { type: 'number', default: 30, describe: 'unused scripts padded onto each chain' })
        .option('seed', { type: 'string', default: '1', describe: 'seed of the grouping' })
        .option('out', { type: 'string', describe: 'wallets file to write (.jsonl)' })
        .option('force', { type: 'boolean', default: false, describe: 'replace --out if it exists' })
        .check(numbersAsTyped(y, argv)),
    )
    .demandCommand(1, 'name a command: build, addresses, filter, stats or wallets')
    .strict()
    .fail((msg, err) => {
      throw err ?? new UserError(msg);
    })
    .help();
}

export async function main(args: string[]): Promise<number> {
  const argv = (await datasetArgs(args).parseAsync()) as Record<string, unknown> & { _: Array<string | number> };
  const command = String(argv._[0]);
  if (command === 'build') return build(argv);
  if (command === 'wallets') return wallets(argv);
  if (command === 'addresses') return addresses(argv);
  if (command === 'filter') {
    const manifest = filterDataset(filterOptions(argv));
    process.stdout.write(summary(String(argv.out), manifest));
    return 0;
  }
  const opts = statsOptions(argv);
  const stats = datasetStats(readDataset(opts.input, '--in').lines, opts.buckets);
  process.stdout.write(opts.json ? JSON.stringify(stats, null, 2) + '\n' : statsTable(stats) + '\n');
  return 0;
}

async function addresses(argv: Record<string, unknown>): Promise<number> {
  const o = addressesOptions(argv);
  const given = addressesOf(o.positional, o.input);
  const started = Date.now();
  const { manifest, network, refused } = await datasetFromAddresses({ ...o, addresses: given });
  if (refused.length) process.stderr.write(`electrum-bench: left out (the server refused their history as too large): ${refused.join(', ')}\n`);
  process.stdout.write(
    `wrote ${o.out.dataset}: ${manifest.lines} ${network} addresses counted by ${manifest.source.countServer} at its tip ${manifest.tip?.height} ` +
      `(${Object.entries(manifest.buckets.counts).map(([b, n]) => `${b} txs: ${n}`).join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return 0;
}

function wallets(argv: Record<string, unknown>): number {
  const input = argv.in as string | undefined;
  const out = argv.out as string | undefined;
  if (!input) throw new UserError('wallets: --in DATASET is required');
  if (!out) throw new UserError('wallets: --out FILE is required');
  const m = /^(\d+)\.\.(\d+)$/.exec(String(argv.size));
  if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) throw new UserError(`--size must be MIN..MAX transactions with 1 <= MIN <= MAX, got ${JSON.stringify(argv.size)}`);
  const gap = argv.gap as number;
  if (!Number.isInteger(gap) || gap < 0 || gap > 1000) throw new UserError(`--gap must be an integer in 0..1000, got ${gap}`);
  const count = argv.count as number | undefined;
  if (count !== undefined && (!Number.isInteger(count) || count < 1)) throw new UserError(`--count must be an integer >= 1, got ${count}`);
  claimInput(input, '--in');
  claimOutputFile(out, '--out', { replace: false, force: argv.force === true });
  const dataset = readDataset(input, '--in');
  const made = syntheticWallets(dataset.lines, { minTxs: Number(m[1]), maxTxs: Number(m[2]), count, gap, seed: String(argv.seed) });
  if (made.length === 0) throw new UserError(`--in ${input}: its addresses make no wallet of ${m[1]}..${m[2]} transactions`);
  writeFileAtomic(out, walletsText(made), { mkdir: true });
  const sizes = made.map((w) => w.expected.txCount).sort((a, b) => a - b);
  process.stdout.write(
    `wrote ${made.length} synthetic wallets to ${out}: ${sizes[0]}..${sizes[sizes.length - 1]} transactions (at most: addresses of one wallet may share one), ` +
      `${made.reduce((n, w) => n + w.expected.usedScripts.receive, 0)} dataset addresses, ${gap} unused scripts per chain\n`,
  );
  return 0;
}

async function build(argv: Record<string, unknown>): Promise<number> {
  const opts = buildOptions(argv);
  const events = new BuildEvents();
  const stopBars = attachProgress(events, { bars: argv.progress !== false });
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const releaseSignals = onStopSignal((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  const started = Date.now();
  try {
    const result = await buildDataset(opts, events, controller.signal);
    process.stdout.write(summary(opts.out.dataset, result.manifest, (Date.now() - started) / 1000));
    return 0;
  } catch (err) {
    stopBars();
    removeTemporaries();
    if (err instanceof BuildInterrupted) {
      process.stderr.write(`electrum-bench: ${err.message}\n`);
      return stoppedCode(stoppedBy);
    }
    throw err;
  } finally {
    releaseSignals();
  }
}

function summary(file: string, m: DatasetManifest, seconds?: number): string {
  const buckets = Object.entries(m.buckets.counts)
    .map(([label, n]) => `${label}: ${n}`)
    .join(', ');
  const took = seconds !== undefined ? ` in ${seconds.toFixed(1)} s` : '';
  return `wrote ${file}: ${m.lines} lines (${buckets})${took}\n`;
}

if (require.main === module) runCli(main);
