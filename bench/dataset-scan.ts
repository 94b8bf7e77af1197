/**
 * Is the dataset builder's scan phase limited by the node, as it should be? Against one node in
 * one run, blocks/s of:
 *   raw      a plain loop: getblockhash, then getblock <hash> 2, one block at a time;
 *   builder  scanBlocks() exactly as `dataset build` runs it (batched, pipelined, candidates
 *            extracted and de-duplicated).
 * Rounds alternate so that drift on a shared machine hits both alike; medians are compared.
 * Target: builder ≥ 0.8 × raw.
 *
 *   npx tsx bench/dataset-scan.ts [--rpc URL (--rpc-cookie FILE | env credentials)] [--from H] [--to H] [--rounds N]
 * Without --rpc it measures the running lab's node.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { NodeRpc } from '../src/node/rpc';
import { runCli } from '../src/cli/run-cli';
import { UserError } from '../src/core/user-error';
import { scanBlocks } from '../src/dataset/scan';
import { networkOfChain } from '../src/dataset/network';
import { DEFAULTS, ENV_RPC_PASSWORD, ENV_RPC_USER } from '../src/dataset/options';

interface Target {
  url: string;
  cookieFile?: string;
  user?: string;
  password?: string;
}

async function labTarget(): Promise<Target> {
  const { labStatus } = await import('../src/lab/lab');
  const s = await labStatus();
  if (s.node.tip === null) throw new UserError('no --rpc given and the lab is not up ("npm run lab -- up" first)');
  return { url: s.node.rpcUrl, cookieFile: s.node.cookieFile };
}

async function rawLoop(rpc: NodeRpc, from: number, to: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let h = from; h <= to; h++) {
    const hash = await rpc.call<string>('getblockhash', [h]);
    await rpc.call('getblock', [hash, 2]);
  }
  return seconds(started);
}

async function builderScan(rpc: NodeRpc, from: number, to: number, network: ReturnType<typeof networkOfChain>, concurrency: number): Promise<{ s: number; candidates: number }> {
  const state = { scannedThrough: from - 1, candidates: new Map() };
  const started = process.hrtime.bigint();
  await scanBlocks(rpc, { from, to, network: network!, concurrency }, state, () => undefined);
  return { s: seconds(started), candidates: state.candidates.size };
}

function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<number> {
  const argv = await yargs(hideBin(process.argv))
    .option('rpc', { type: 'string', describe: 'node JSON-RPC URL (default: the running lab)' })
    .option('rpc-cookie', { type: 'string' })
    .option('from', { type: 'number', default: 1 })
    .option('to', { type: 'number', describe: 'default: the tip' })
    .option('rounds', { type: 'number', default: 3 })
    .option('concurrency', { type: 'number', default: DEFAULTS.scanConcurrency, describe: 'builder getblock requests in flight' })
    .strict()
    .fail((msg, err) => {
      throw err ?? new UserError(msg);
    })
    .parseAsync();
  const target: Target = argv.rpc
    ? { url: argv.rpc, cookieFile: argv['rpc-cookie'], user: process.env[ENV_RPC_USER], password: process.env[ENV_RPC_PASSWORD] }
    : await labTarget();
  const rpc = new NodeRpc(target);
  try {
    const info = await rpc.call<{ chain: string; blocks: number }>('getblockchaininfo');
    const network = networkOfChain(info.chain);
    if (network === null) throw new UserError(`node is on chain ${info.chain}, which has no address format we know`);
    const to = argv.to ?? info.blocks;
    const from = argv.from;
    if (!(from >= 0 && from <= to && to <= info.blocks)) throw new UserError(`need 0 <= --from <= --to <= tip ${info.blocks}`);
    const blocks = to - from + 1;
    process.stdout.write(`node ${rpc.describe()} (${network}), blocks ${from}..${to} (${blocks}), ${argv.rounds} rounds, builder concurrency ${argv.concurrency}\n`);

    await rawLoop(rpc, from, Math.min(to, from + 9)); // warm the node's caches and our keep-alive sockets
    const raw: number[] = [];
    const builder: number[] = [];
    let candidates = 0;
    for (let r = 1; r <= argv.rounds; r++) {
      const rawS = await rawLoop(rpc, from, to);
      const b = await builderScan(rpc, from, to, network, argv.concurrency);
      candidates = b.candidates;
      raw.push(blocks / rawS);
      builder.push(blocks / b.s);
      process.stdout.write(`round ${r}: raw ${(blocks / rawS).toFixed(0)} blocks/s (${rawS.toFixed(2)} s), builder ${(blocks / b.s).toFixed(0)} blocks/s (${b.s.toFixed(2)} s)\n`);
    }
    const ratio = median(builder) / median(raw);
    process.stdout.write(
      `median: raw getblock loop ${median(raw).toFixed(0)} blocks/s, builder scan ${median(builder).toFixed(0)} blocks/s ` +
        `(${candidates} candidates) → ratio ${ratio.toFixed(2)}× (target ≥ 0.8×: ${ratio >= 0.8 ? 'met' : 'NOT met'})\n`,
    );
    return 0;
  } finally {
    rpc.close();
  }
}

runCli(main);
