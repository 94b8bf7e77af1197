/**
 * `bench --workload`: every wallet synced from scratch on every server, pass after pass, one sync
 * at a time so no two share the server or our event loop: the engine's sequential executor at
 * concurrency 1 over the wallet-sync iteration (sync-iteration.ts, where servers rotate per
 * wallet). The first `warmup` passes are stored but left out of the medians. The run's record is
 * the run session's (src/runs/kinds/wallet-bench.ts), which also sums it up from the stored syncs.
 */
import { EventEmitter } from 'node:events';
import type { ServerTarget } from '../servers/targets';
import type { LoadedWallets, WalletLine } from '../core/wallet-line';
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
import { isAnswered } from '../core/outcomes';
import { AnswerWatch, stoppedAnswering as stoppedAnsweringJudged, type StoppedAnswering } from '../core/stopped-answering';

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

/** The run's record, as the run session keeps it: its id and each server's id by name. */
export interface WalletBenchRecords {
  open(wallets: readonly WalletLine[]): { runId: number; serverIds: Map<string, number> };
}

/** How the plan ended, for the session to finish the run with. */
export interface WalletBenchEnd {
  runId: number;
  serverIds: Map<string, number>;
  /** The wallets synced (the first --limit of the file). */
  wallets: readonly WalletLine[];
  /** Every planned sync was made. */
  planDone: boolean;
  /** The first failed sync's step and error, per server that had one. */
  firstFailures: Map<string, string>;
  /** Per server, whether it stopped answering part-way (src/core/stopped-answering.ts), judged on its syncs' own times from its first. */
  stoppedAnswering: Map<string, StoppedAnswering | null>;
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

  async run(file: LoadedWallets, records: WalletBenchRecords): Promise<WalletBenchEnd> {
    const o = this.o;
    const wallets = o.limit ? file.wallets.slice(0, o.limit) : file.wallets;
    const store = new WalletStore(this.results);
    const { runId, serverIds } = records.open(wallets);
    const total = o.passes * wallets.length * o.servers.length;
    this.emit('start', { runId, total });
    let done = 0;
    let failure: { err: unknown } | undefined;
    const stored = new SyncRows(store, runId);
    const sink = allOf<PassSynced>([mapped(stored, ({ unit, result }) => ({ row: syncRecord(serverIds.get(unit.server.name)!, result, unit.pass, unit.warmup), identity: result })), ...this.sinks]);
    const firstFailures = new Map<string, string>();
    // One sync at a time: a server's sync started is the one that ends next. Each server's times
    // in ms from its first sync's start, to its last sync's end (as an address bench judges it,
    // store/answering.ts): the other servers' syncs between its own are part of its silence.
    const watches = new Map(o.servers.map((t) => [t.name, { watch: new AnswerWatch(), firstMs: null as number | null, startedMs: 0, lastEndMs: 0, syncs: 0 }]));
    const syncs = passSyncIteration({
      workload: o.workload,
      wallets,
      servers: o.servers,
      connection: (t) => ({ host: t.host, port: t.port, tls: t.tls, websocket: t.websocket, tlsInsecure: o.tlsInsecure, ca: o.ca, timeoutMs: o.timeoutMs, maxLineBytes: o.maxLineBytes, keepaliveMs: 0 }),
      verify: o.verify,
      starting: ({ server: t }) => {
        const w = watches.get(t.name)!;
        w.firstMs ??= performance.now();
        w.startedMs = performance.now() - w.firstMs;
        this.emit('call', { server: t.name });
      },
      synced: (unit, result) => {
        const w = watches.get(unit.server.name)!;
        w.syncs++;
        w.lastEndMs = performance.now() - (w.firstMs ?? performance.now());
        w.watch.note(isAnswered(result.status), w.startedMs, w.lastEndMs);
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
    const stoppedAnswering = new Map(
      [...watches].map(([server, { watch, syncs, lastEndMs }]) => [
        server,
        stoppedAnsweringJudged({ answered: watch.answered, of: syncs, lastAnswerS: watch.lastAnswer === null ? null : watch.lastAnswer / 1000, unansweredAfterLastAnswer: watch.unansweredAfter, endS: lastEndMs / 1000 }),
      ]),
    );
    return { runId, serverIds, wallets, planDone: done >= total, firstFailures, stoppedAnswering };
  }
}
