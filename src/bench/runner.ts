/**
 * The bench runner: dataset × servers × methods × passes, through one pool per server, every
 * answer recorded as a sample (ok or an error category), warm-up passes flagged. Its calls are
 * units of the bench-call iteration (call-iteration.ts), paced by the engine's sequential
 * executor. The run's record is the run session's (src/runs/kinds/bench.ts): the runner asks it
 * for the run once every server has answered, and hands back how the plan ended. It emits events
 * and knows nothing about terminals.
 */
import { EventEmitter } from 'node:events';
import type { DatasetLine, LoadedDataset } from '../core/dataset-line';
import { ResultsStore, type SampleRow } from '../store/results';
import type { MethodSummary } from '../store/statistics';
import type { FinalStatus } from '../core/run-status';
import { UserError } from '../core/user-error';
import { isWalletCallName, type BenchMethodName } from './methods';
import { walletSubjects } from './wallet-subjects';
import { CallOrder } from './order';
import { benchCallIteration } from './call-iteration';
import { DoneSet } from './done-set';
import type { PlanContext } from '../engine/iteration';
import type { Pacer } from '../engine/executors/executor';
import { planExecutorFor } from '../engine/executors/registry';
import type { SequentialPlan } from '../engine/executors/sequential';
import { allOf, mapped, type UnitSink } from '../engine/sinks/unit-sink';
import { SampleRows } from '../engine/sinks/sample-rows';
import { SelfMonitor, SelfCheck } from './selfcheck';
import { startFailure, type MeasuringPool, type Tip } from '../transports/transport';
import { followTip, openPool } from '../transports/registry';
import type { ServerTarget } from '../servers/targets';
import { toolInfo } from '../core/tool-info';
import type { PoolStats } from '../transports/connections';
import { isColdPass, passSegments, type ColdStart, type PassSegment } from './cold-passes';

/** A call's one sample as the run's sinks get it: with its server's name and how many calls of the plan are measured now. */
export interface MeasuredCall {
  sample: SampleRow;
  server: string;
  done: number;
}

export interface BenchOptions {
  servers: ServerTarget[];
  datasetPath: string;
  methods: BenchMethodName[];
  passes: number;
  warmup: number;
  shuffle: boolean;
  /** The order calls are made in (src/bench/order.ts); runs stored before it existed used 'address' without method rotation. */
  order: CallOrder;
  seed: string;
  limit?: number;
  concurrency: number;
  timeoutMs: number;
  maxLineBytes: number;
  tlsInsecure: boolean;
  caFile?: string;
  ca?: Buffer;
  verify: boolean;
  /** A server setting the measured server was started with for this run (a `--param` sweep's value). */
  serverSettings?: Record<string, string>;
  /** An A/B run: the server the others are judged against (recorded; the report gives the verdicts). */
  baseline?: string;
  /** `--cold`: the counted passes alternate cold and warm (src/bench/cold-passes.ts). */
  cold?: boolean;
}

export interface RunResult {
  runId: number;
  status: FinalStatus;
  summaries: Array<MethodSummary & { server: string }>;
  selfCheck: SelfCheck;
  warnings: string[];
  samples: number;
  lateReplies: number;
  order: CallOrder;
}

/** What a server said of itself once connected. */
export interface ServerInfo {
  software: string;
  protocol: string;
  banner?: string;
  features?: unknown;
}

/** The run's record, as the run session keeps it: asked for once every server answered. */
export interface BenchRecords {
  /** A new run's record, or a resumed one's (its calls already measured in `done`); server ids in the order of the options' servers. */
  open(lines: DatasetLine[], infos: ServerInfo[]): { runId: number; serverIds: number[]; done: DoneSet };
}

/** How the plan ended, for the session to finish the run with. */
export interface BenchRunEnd {
  runId: number;
  serverNames: Map<number, string>;
  /** Every planned call has its sample. */
  planDone: boolean;
  /** What made the run fail (a database that refused a write): the samples stored are kept. */
  failure?: unknown;
  selfCheck: SelfCheck;
  /** The connections' statistics per server name (outages, late replies). */
  pool: Record<string, unknown>;
  lateReplies: number;
  samples: number;
  /** How the calls were paced, in words. */
  scheduler: string;
}

/** Grace period for in-flight calls once a stop is asked for: a stop must take at most 2 s in all. */
const STOP_GRACE_MS = 1500;

/** A stop asked for before measuring began: nothing was written. */
export class StoppedBeforeStart extends Error {
  constructor() {
    super('stopped before measuring began; nothing was written');
  }
}

export class BenchRunner extends EventEmitter {
  private stopRequested = false;
  private wakeStop: (() => void) | undefined;
  /** Aborts connects and handshakes still pending when a stop is asked for. */
  private readonly startup = new AbortController();
  private pools: MeasuringPool[] = [];
  private pacer: Pacer | undefined;

  constructor(
    private readonly opts: BenchOptions,
    private readonly store: ResultsStore,
    /** Where each call's sample goes besides the run's rows (a command's watchers). */
    private readonly sinks: ReadonlyArray<UnitSink<MeasuredCall>> = [],
    /** With `opts.cold`: how the servers are made cold before each cold pass. */
    private readonly coldStart?: ColdStart,
  ) {
    super();
  }

  stop(): void {
    this.stopRequested = true;
    this.startup.abort();
    this.pacer?.stop();
    this.wakeStop?.();
    // Still connecting: nothing in flight is worth waiting for.
    if (!this.wakeStop) for (const p of this.pools) p.close();
  }

  /** Writes what is buffered now (a second Ctrl-C exits at once, after this). */
  flushNow(): void {
    this.store.flush();
  }

  /** Measures the plan of `dataset` into the run `records` opens (a new one, or a resumed one from the first sample it lacks). */
  async run(dataset: LoadedDataset, records: BenchRecords): Promise<BenchRunEnd> {
    const { opts, store } = this;
    const lines = opts.limit !== undefined ? dataset.lines.slice(0, opts.limit) : dataset.lines;
    const transport = (signal?: AbortSignal) => ({
      timeoutMs: opts.timeoutMs,
      maxLineBytes: opts.maxLineBytes,
      tlsInsecure: opts.tlsInsecure,
      ca: opts.ca,
      concurrency: opts.concurrency,
      clientName: `electrum-bench/${toolInfo().version}`,
      signal,
    });
    const pools = (this.pools = opts.servers.map((t) => openPool(t, transport())));
    const tips: Tip[] = [];
    /** Statistics of the connections a cold restart closed, per server: the run's pool record sums them with the last ones. */
    const retired: PoolStats[][] = opts.servers.map(() => []);
    const reopen = async () => {
      tips.forEach((t) => t.close());
      pools.forEach((p, i) => {
        p.close();
        retired[i].push(p.stats);
      });
      await this.coldStart!.restart();
      if (this.stopRequested) return;
      for (const [i, t] of opts.servers.entries()) {
        pools[i] = openPool(t, transport(this.startup.signal));
        await pools[i].start();
        tips[i] = await followTip(t, transport(this.startup.signal));
      }
    };
    let flushTimer: NodeJS.Timeout | undefined;
    try {
      const infos = await Promise.all(
        pools.map((p, i) =>
          p.start().catch((err) => {
            if (this.stopRequested) throw new StoppedBeforeStart();
            throw new UserError(startFailure(opts.servers[i], err));
          }),
        ),
      );
      for (const t of opts.servers) {
        const signal = this.startup.signal;
        tips.push(await followTip(t, transport(signal)));
      }
      if (this.stopRequested) throw new StoppedBeforeStart();
      const { runId, serverIds, done } = records.open(lines, infos);
      store.setRun(runId);
      const serverNames = new Map(serverIds.map((id, i) => [id, opts.servers[i].name]));

      const total = opts.passes * lines.length * opts.servers.length * opts.methods.length;
      const monitor = new SelfMonitor();
      const started = Date.now();
      let completed = done.count;
      let samples = 0;
      let passSeen = -1;
      let finalized = false;
      let flushError: unknown;
      this.emit('start', { runId, total, alreadyDone: done.count });
      // Samples are written between calls when due; this timer covers calls that take seconds.
      flushTimer = setInterval(() => {
        try {
          if (store.flushDue) store.flush();
        } catch (err) {
          // The database refused a write: stop, and fail the run with that error.
          flushError ??= err;
          this.stop();
        }
      }, 250);
      flushTimer.unref();

      const sink = allOf<MeasuredCall>([mapped(new SampleRows(store), (c) => c.sample), ...this.sinks]);
      const calls = benchCallIteration({
        plan: { order: opts.order ?? 'address', passes: opts.passes, addresses: lines.length, servers: opts.servers.length, methods: opts.methods, shuffle: opts.shuffle, seed: opts.seed },
        servers: opts.servers,
        lines,
        // The CLI refused a dataset without chain facts before anything was opened.
        wallet: opts.methods.some(isWalletCallName) ? walletSubjects(lines, dataset.chainFacts!) : undefined,
        pools,
        serverIds,
        tips,
        monitor,
        verify: opts.verify,
        coldPass: (pass) => !!opts.cold && isColdPass(pass, opts.warmup),
        done,
        starting: (call) => {
          this.emit('call', { server: opts.servers[call.server].name });
          if (call.pass === passSeen) return;
          if (passSeen >= 0) this.emit('pass-done', { pass: passSeen, elapsedMs: Date.now() - started, completed, total });
          passSeen = call.pass;
        },
        measured: (sample) => {
          // A call still in flight when the stop grace ran out ends with our own disconnect: not a sample.
          if (finalized) return;
          samples++;
          completed++;
          const server = serverNames.get(sample.serverId)!;
          // The rows are written here, between this worker's calls, so a write never stalls a call it times.
          sink.record({ sample, server, done: completed });
          this.emit('sample', { completed, total, sample, server });
        },
        failed: (err) => {
          flushError ??= err;
          this.stop();
        },
      });

      let failure: unknown;
      try {
        for (const segment of passSegments(opts.passes, opts.warmup, !!opts.cold)) {
          if (this.stopRequested) break;
          // A cold pass a resumed run has whole needs no restart; one it has in part restarts before the rest.
          if (segment.cold && calls.batch({ pass: segment.first, warmup: false }).more) {
            this.emit('cold-restart', { pass: segment.first });
            const restarting = reopen();
            // Its failure fails the run (below), unless a stop cut the wait for it short.
            restarting.catch(() => undefined);
            await this.untilStopped(restarting);
            if (this.stopRequested) break;
          }
          await this.runUntilStopped(segmentOf(calls, segment), segment);
        }
        if (flushError) throw flushError;
      } catch (err) {
        // E.g. the database refused a write: stop every worker, keep what was stored, say so.
        this.stopRequested = true;
        failure = err;
      } finally {
        finalized = true;
        clearInterval(flushTimer);
        this.emit('end');
      }
      const selfCheck = monitor.stop();
      if (failure === undefined) store.flush();
      // Connections first (a stop must not wait for what comes after): their statistics are final once closed.
      for (const p of pools) p.close();
      return {
        runId,
        serverNames,
        planDone: completed >= total,
        failure,
        selfCheck,
        pool: Object.fromEntries(pools.map((p, i) => [opts.servers[i].name, summed([...retired[i], p.stats])])),
        lateReplies: pools.reduce((n, p, i) => n + summed([...retired[i], p.stats]).lateReplies, 0),
        samples,
        scheduler: planExecutorFor(this.plan()).describe(this.plan(), opts.servers.length),
      };
    } finally {
      if (flushTimer) clearInterval(flushTimer);
      tips.forEach((t) => t.close());
      for (const p of pools) p.close();
    }
  }

  /** How the run's calls are paced (src/engine/executors/sequential.ts), and stored as its `scheduler`. */
  private plan(): SequentialPlan {
    const { passes, warmup, concurrency } = this.opts;
    return { kind: 'sequential', passes, warmup, concurrency };
  }

  /**
   * Runs the plan; once a stop is asked for, waits for in-flight calls a short grace period and
   * then gives up on them (they are not samples: nothing about them was measured to the end).
   */
  private async runUntilStopped(calls: PlanContext, segment: PassSegment): Promise<void> {
    const { warmup, concurrency } = this.opts;
    // The segment's passes, numbered from 0 for the executor; segmentOf() numbers them back.
    const plan: SequentialPlan = { kind: 'sequential', passes: segment.count, warmup: Math.max(0, Math.min(segment.count, warmup - segment.first)), concurrency };
    const pacer = (this.pacer = planExecutorFor(plan).create(calls, plan));
    if (this.stopRequested) pacer.stop();
    await this.untilStopped(pacer.run());
  }

  /** `work`, or once a stop is asked for, at most a short grace period more of it. */
  private async untilStopped(work: Promise<void>): Promise<void> {
    const stopped = new Promise<void>((resolve) => {
      this.wakeStop = () => setTimeout(resolve, STOP_GRACE_MS).unref();
      if (this.stopRequested) this.wakeStop();
    });
    await Promise.race([work, stopped]);
  }
}

/** The plan's context as one segment's executor sees it: its passes numbered from 0. */
function segmentOf(calls: PlanContext, segment: PassSegment): PlanContext {
  if (segment.first === 0) return calls;
  return { clock: calls.clock, servers: calls.servers, batch: (part) => calls.batch({ ...part, pass: part.pass + segment.first }) };
}

/** The statistics of a server's successive connection sets as one: counts added, outages joined, the last set's open connections. */
function summed(stats: PoolStats[]): PoolStats {
  const last = stats[stats.length - 1];
  if (stats.length === 1) return last;
  const sum = (k: 'created' | 'evicted' | 'lateReplies' | 'connectAttempts') => stats.reduce((n, s) => n + s[k], 0);
  return { ...last, created: sum('created'), evicted: sum('evicted'), lateReplies: sum('lateReplies'), connectAttempts: sum('connectAttempts'), outages: stats.flatMap((s) => s.outages) };
}

/** What a run stores of its configuration: everything needed to resume it, nothing secret. */
export function storedConfig(opts: BenchOptions): Record<string, unknown> {
  const { ca: _ca, ...rest } = opts;
  return rest;
}

