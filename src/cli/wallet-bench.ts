/**
 * `bench --workload NAME --wallets FILE`: whole-wallet syncs instead of single calls. Options are
 * checked before the database is touched; the run is stored in the wallet tables (migration 7).
 */
import { claimInput } from '../core/output-path';
import { UserError } from '../core/user-error';
import type { WalletBench } from '../wallet/bench';
import type { SyncResult } from '../wallet/sync';
import { readWallets } from '../dataset/wallet-file';
import { workloadNamed } from '../wallet/workloads';
import { electrumTargets, resolveTargets, type TargetArgs } from './server-targets';
import { readCa } from '../core/ca-file';
import { labServersAmong, labSetups } from './lab-targets';
import { checkedPlan, optionsOnCommandLine, timeoutSeconds } from './validate';
import { SERVER_SAMPLING_FLAGS } from './resource-targets';
import type { WatchPlan } from './watch-options';
import { walletBenchSession } from '../runs/kinds/wallet-bench';
import { printWalletBench } from './print-wallet';
import { limitsOf } from './server-limits';

export interface WalletBenchArgs extends TargetArgs {
  workload: string;
  wallets?: string;
  dataset?: string;
  passes: number;
  warmup: number;
  timeout: number;
  'max-line-bytes': number;
  'tls-insecure': boolean;
  ca?: string;
  verify: boolean;
  limit?: number;
  db: string;
  json: boolean;
  progress: boolean;
  'ignore-unanswered'?: boolean;
  'strict-limits'?: boolean;
  'limits-db'?: string;
}

/** Options of `bench` that mean nothing for whole-wallet syncs: refused rather than ignored. */
// The servers' resources are sampled beside address benchmarks (and a wallet load's --abuse), not whole-wallet syncs.
const ADDRESS_ONLY = ['dataset', 'methods', 'shuffle', 'order', 'concurrency', 'resume', 'param', 'baseline', 'fail-on-regression', ...SERVER_SAMPLING_FLAGS];

export async function walletBench(a: WalletBenchArgs, argv: string[], watch: WatchPlan): Promise<number> {
  const workload = workloadNamed(a.workload);
  const stray = optionsOnCommandLine(ADDRESS_ONLY, argv);
  if (stray.length) throw new UserError(`--workload syncs whole wallets: --${stray.join(', --')} apply to address benchmarks only`);
  if (!a.wallets) throw new UserError('--workload needs --wallets FILE (e.g. datasets/regtest-lab-wallets.jsonl, written by `npm run lab -- up`)');
  claimInput(a.wallets, '--wallets');
  const wallets = readWallets(a.wallets, '--wallets', workload.name);
  const int = (name: string, v: number | undefined, min: number) => {
    if (v === undefined || !Number.isInteger(v) || v < min) throw new UserError(`--${name} must be an integer >= ${min}, got ${v}`);
    return v;
  };
  // One sync at a time: no two share the server or our event loop.
  const { passes, warmup } = checkedPlan({ kind: 'sequential', passes: a.passes, warmup: a.warmup, concurrency: 1 });
  const timeoutMs = timeoutSeconds('--timeout', a.timeout);
  const resolved = await resolveTargets(a);
  const labCaFile = resolved.labCaFile;
  const targets = electrumTargets(resolved.targets, a.lab);
  const caFile = a.ca ?? labCaFile;
  const ca = caFile ? readCa(caFile) : undefined;
  const maxLineBytes = int('max-line-bytes', a['max-line-bytes'], 1024);
  const setups = await labSetups((await labServersAmong(targets)).servers);
  const { outcome, code } = await walletBenchSession({
    opts: { servers: targets, workload, passes, warmup, timeoutMs, maxLineBytes, tlsInsecure: a['tls-insecure'], caFile, ca, verify: a.verify, limit: a.limit === undefined ? undefined : int('limit', a.limit, 1), setups },
    wallets,
    db: a.db,
    watch,
    title: `bench, ${workload.name} workload, ${passes} passes, on ${targets.map((t) => t.name).join(', ')}`,
    ignoreUnanswered: a['ignore-unanswered'] ?? false,
    observe: a.progress ? (bench) => followSyncs(bench, workload.name) : undefined,
    limits: await limitsOf(targets, a['limits-db']),
    strictLimits: a['strict-limits'] ?? false,
    log: (line) => process.stderr.write(line + '\n'),
  });
  process.stdout.write(printWalletBench(outcome, { json: a.json }) + '\n');
  return code;
}

/** A line per sync on stderr. */
function followSyncs(bench: WalletBench, workload: string): void {
  bench.on('start', ({ runId, total }: { runId: number; total: number }) => process.stderr.write(`[bench] run ${runId}: ${total} wallet syncs (${workload} workload)\n`));
  bench.on('sync', ({ server, pass, result: r, done }: { server: string; pass: number; result: SyncResult; done: number }) => {
    const what = r.status === 'ok' ? `${(Number(r.durationNs) / 1e6).toFixed(1)} ms, ${r.samples.length} requests` : `${r.status} at ${r.errorStep}: ${r.error}`;
    const bad = r.mismatch?.length ? `  MISMATCH ${r.mismatch.join('; ')}` : '';
    process.stderr.write(`[bench] ${done} pass ${pass + 1} ${server} ${r.wallet.wallet}: ${what}${bad}\n`);
  });
}
