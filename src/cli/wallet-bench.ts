/**
 * `bench --workload NAME --wallets FILE`: whole-wallet syncs instead of single calls. Options are
 * checked before the database is touched; the run is stored in the wallet tables (migration 7).
 */
import { fileAboutToBeCreated } from '../core/created-file';
import { claimInput } from '../core/output-path';
import { textTable } from '../core/text-table';
import { ResultsStore } from '../store/results';
import { UserError } from '../core/user-error';
import { WalletBench, type PassSynced, type WalletBenchResult } from '../wallet/bench';
import { readWallets } from '../dataset/wallet-file';
import { workloadNamed } from '../wallet/workloads';
import { electrumTargets, readCa, resolveTargets, type TargetArgs } from './server-targets';
import { ensureReachable } from '../runs/reachable';
import { onStopSignal } from '../runs/signals';
import { labServersAmong, labSetups } from './lab-targets';
import { checkedPlan, timeoutSeconds } from './validate';
import { walletsNetwork } from '../dataset/expected-network';
import { type WatchPlan } from './watch-options';
import { openOutputs } from '../runs/outputs';
import { PlannedRunLive, type PlannedUnitEnd } from '../engine/planned-live';
import { mapped } from '../engine/sinks/unit-sink';

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
}

/** Options of `bench` that mean nothing for whole-wallet syncs: refused rather than ignored. */
const ADDRESS_ONLY = ['dataset', 'methods', 'shuffle', 'order', 'concurrency', 'resume', 'param', 'baseline', 'fail-on-regression'];

export async function walletBench(a: WalletBenchArgs, argv: string[], watch: WatchPlan): Promise<number> {
  const workload = workloadNamed(a.workload);
  const stray = ADDRESS_ONLY.filter((f) => argv.some((t) => t === `--${f}` || t.startsWith(`--${f}=`)));
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
  // Claimed and listening before any work; closed whatever happens next.
  const outputs = await openOutputs(watch, `bench, ${workload.name} workload, ${passes} passes, on ${targets.map((t) => t.name).join(', ')}`);
  try {
    await ensureReachable(targets, { timeoutMs, maxLineBytes, tlsInsecure: a['tls-insecure'], ca }, walletsNetwork(wallets));
    const setups = await labSetups((await labServersAmong(targets)).servers);

    const created = fileAboutToBeCreated(a.db);
    const store = ResultsStore.open(a.db);
    let result: WalletBenchResult | undefined;
    let bench: WalletBench | undefined;
    const live = outputs.empty ? undefined : new PlannedRunLive(outputs, { passes, warmup, concurrency: 1, servers: targets.map((t) => t.name) }, () => bench?.stop());
    try {
      bench = new WalletBench(
        {
          servers: targets,
          workload,
          passes,
          warmup,
          timeoutMs,
          maxLineBytes,
          tlsInsecure: a['tls-insecure'],
          caFile,
          ca,
          verify: a.verify,
          limit: a.limit === undefined ? undefined : int('limit', a.limit, 1),
          setups,
        },
        store,
        live ? [mapped(live, syncEnd)] : [],
      );
      const running = bench;
      onStopSignal(
        () => running.stop(),
        () => undefined,
      );
      if (a.progress) {
        bench.on('start', ({ runId, total }: { runId: number; total: number }) => process.stderr.write(`[bench] run ${runId}: ${total} wallet syncs (${workload.name} workload)\n`));
        bench.on('sync', ({ server, pass, result: r, done }) => {
          const what = r.status === 'ok' ? `${(Number(r.durationNs) / 1e6).toFixed(1)} ms, ${r.samples.length} requests` : `${r.status} at ${r.errorStep}: ${r.error}`;
          const bad = r.mismatch?.length ? `  MISMATCH ${r.mismatch.join('; ')}` : '';
          process.stderr.write(`[bench] ${done} pass ${pass + 1} ${server} ${r.wallet.wallet}: ${what}${bad}\n`);
        });
      }
      if (live) {
        bench.on('start', ({ runId, total }: { runId: number; total: number }) => live.start(runId, total, 0));
        bench.on('call', ({ server }: { server: string }) => live.started(server));
      }
      result = await bench.run(wallets);
    } catch (err) {
      await live?.stop().catch(() => undefined);
      store.close();
      if (created) created.remove();
      throw err;
    }
    store.close();
    // What an output threw on the way fails the command, the run kept.
    await live?.stop();
    const summed = { db: a.db, workload: workload.name, ...result };
    if (live) await outputs.end(summed);
    if (a.json) process.stdout.write(JSON.stringify(summed, null, 2) + '\n');
    else process.stdout.write(summary(result, workload.name, a.db, a.verify) + '\n');
    if (result.status === 'interrupted') return 130;
    return 0;
  } finally {
    await outputs.close();
  }
}

function summary(r: WalletBenchResult, workload: string, db: string, verify: boolean): string {
  const head = ['server', 'wallets', 'syncs', 'failed', verify ? 'mismatched' : 'verified', 'median of wallet medians', 'largest wallet (median)'];
  const rows = r.rows.map((row) => [
      row.server,
      String(row.wallets),
      String(row.syncs),
      String(row.failed),
      verify ? String(row.mismatched) : 'no (--verify)',
      row.medianMs === null ? '-' : `${row.medianMs.toFixed(1)} ms`,
      row.largest ? `${row.largest.wallet} (${row.largest.txs} txs): ${row.largest.medianMs === null ? '-' : `${row.largest.medianMs.toFixed(1)} ms`}` : '-',
  ]);
  const failures = r.rows.filter((row) => row.firstFailure).map((row) => `${row.server}: ${row.failed} of ${row.syncs} syncs failed; the first at ${row.firstFailure}\n`);
  return `wallet run ${r.runId} (${workload} workload, ${r.status}), time to synced wallet:\n${textTable(head, rows)}\n${failures.join('')}results: ${db}; report: npm run report -- --db ${db}`;
}

/** A wallet sync of the plan as the watchers take it. */
function syncEnd({ unit, result, done }: PassSynced): PlannedUnitEnd {
  return { server: unit.server.name, unit: 'sync', end: { outcome: result.status, durationNs: Number(result.durationNs) }, pass: unit.pass, done };
}
