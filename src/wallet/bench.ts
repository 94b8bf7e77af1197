/**
 * `bench --workload`: every wallet synced from scratch on every server, pass after pass, one sync
 * at a time so no two share the server or our event loop: the engine's sequential executor at
 * concurrency 1 over the wallet-sync iteration (sync-iteration.ts, where servers rotate per
 * wallet). The first `warmup` passes are stored but left out of the medians.
 */
import { EventEmitter } from 'node:events';
import type { ServerTarget } from '../servers/targets';
import { toolInfo } from '../core/tool-info';
import type { LoadedWallets } from '../core/wallet-line';
import { formatServerUrl } from '../core/server-address';
import type { ResultsStore } from '../store/results';
import { WalletStore } from '../store/wallets';
import { passSyncIteration, type WalletSync } from './pass-sync-iteration';
import { syncRecord, type SyncResult } from './sync';
import { allOf, mapped, type UnitSink } from '../engine/sinks/unit-sink';
import { SyncRows } from '../engine/sinks/sync-rows';
import type { Pacer } from '../engine/executors/executor';
import { planExecutorFor } from '../engine/executors/registry';
import type { SequentialPlan } from '../engine/executors/sequential';
import type { Workload } from './workloads';
import { medianOfUnsorted as median } from '../core/quantiles';

export interface WalletBenchOptions {
  servers: ServerTarget[];
  workload: Workload;
  passes: number;
  warmup: number;
  timeoutMs: number;
  maxLineBytes: number;
  tlsInsecure: boolean;
  ca?: Buffer;
  caFile?: string;
  verify: boolean;
  /** Only the first N wallets of the file. */
  limit?: number;
  /** Stored with the run, per server: what it was set up with (e.g. its polling interval). */
  setups?: Map<string, unknown>;
}

export interface WalletBenchSummaryRow {
  server: string;
  wallets: number;
  syncs: number;
  failed: number;
  mismatched: number;
  medianMs: number | null;
  largest: { wallet: string; txs: number; medianMs: number | null } | null;
  /** The first failed sync's step and error, when any failed. */
  firstFailure?: string;
}

export interface WalletBenchResult {
  runId: number;
  status: 'completed' | 'interrupted';
  rows: WalletBenchSummaryRow[];
}

/** A sync of the plan as the run's sinks get it, with how many of the plan's syncs are done now. */
export interface PassSynced {
  unit: WalletSync;
  result: SyncResult;
  done: number;
}

export class WalletBench extends EventEmitter {
  private stopping = false;
  private pacer: Pacer | undefined;

  constructor(
    private readonly o: WalletBenchOptions,
    private readonly results: ResultsStore,
    /** Where each sync goes besides the run's rows and summary (a command's watchers). */
    private readonly sinks: ReadonlyArray<UnitSink<PassSynced>> = [],
  ) {
    super();
  }

  stop(): void {
    this.stopping = true;
    this.pacer?.stop();
  }

  async run(file: LoadedWallets): Promise<WalletBenchResult> {
    const o = this.o;
    const wallets = o.limit ? file.wallets.slice(0, o.limit) : file.wallets;
    const store = new WalletStore(this.results);
    const { version, gitCommit } = toolInfo();
    const { runId, serverIds } = store.createRun(
      {
        kind: 'bench',
        tool_version: version,
        git_commit: gitCommit,
        config: { ...o, ca: undefined, workload: o.workload.name, setups: undefined },
        workload: o.workload.name,
        wallets_path: file.path,
        wallets_hash: file.hash,
        passes: o.passes,
        warmup: o.warmup,
      },
      o.servers.map((t) => ({ name: t.name, profile: t.profile, url: formatServerUrl(t, 'tcp'), software: null, protocol: null, setup: o.setups?.get(t.name) })),
    );
    this.emit('start', { runId, total: o.passes * wallets.length * o.servers.length });
    let done = 0;
    let failure: { err: unknown } | undefined;
    const stored = new SyncRows(store, runId);
    const sink = allOf<PassSynced>([mapped(stored, ({ unit, result }) => ({ row: syncRecord(serverIds.get(unit.server.name)!, result, unit.pass, unit.warmup), identity: result })), ...this.sinks]);
    const firstFailures = new Map<string, string>();
    const syncs = passSyncIteration({
      workload: o.workload,
      wallets,
      servers: o.servers,
      connection: (t) => ({ host: t.host, port: t.port, tls: t.tls, tlsInsecure: o.tlsInsecure, ca: o.ca, timeoutMs: o.timeoutMs, maxLineBytes: o.maxLineBytes, keepaliveMs: 0 }),
      verify: o.verify,
      starting: ({ server: t }) => this.emit('call', { server: t.name }),
      synced: (unit, result) => {
        if (result.status !== 'ok' && !firstFailures.has(unit.server.name)) firstFailures.set(unit.server.name, `${result.errorStep}: ${result.error}`);
        sink.record({ unit, result, done: ++done });
        this.emit('sync', { server: unit.server.name, pass: unit.pass, result, done });
      },
      failed: (err) => {
        failure ??= { err };
        this.stop();
      },
    });
    // One sync at a time: no two share the server or our event loop.
    const plan: SequentialPlan = { kind: 'sequential', passes: o.passes, warmup: o.warmup, concurrency: 1 };
    this.pacer = planExecutorFor(plan).create(syncs, plan);
    if (this.stopping) this.pacer.stop();
    await this.pacer.run();
    // As before the engine ran it: a sync that threw fails the run with that error.
    if (failure) throw failure.err;
    const status = this.stopping ? 'interrupted' : 'completed';
    // The figures come from the stored syncs, as a bench's from its samples.
    const largestWallet = wallets.reduce((a, b) => (b.expected.txCount > a.expected.txCount ? b : a));
    const figures = new Map(store.benchFigures(runId).map((f) => [f.serverId, f]));
    const rows: WalletBenchSummaryRow[] = o.servers.map((t) => {
      const f = figures.get(serverIds.get(t.name)!);
      const byWallet = f?.byWallet ?? new Map<string, number[]>();
      const medians = [...byWallet.values()].map((xs) => median(xs)!);
      const largest = byWallet.get(largestWallet.wallet);
      return {
        server: t.name,
        wallets: wallets.length,
        syncs: f?.syncs ?? 0,
        failed: f?.failed ?? 0,
        mismatched: f?.mismatched ?? 0,
        medianMs: medians.length ? median(medians) : null,
        largest: { wallet: largestWallet.wallet, txs: largestWallet.expected.txCount, medianMs: largest ? median(largest) : null },
        firstFailure: firstFailures.get(t.name),
      };
    });
    store.finishRun(runId, status, { rows });
    return { runId, status, rows };
  }
}
