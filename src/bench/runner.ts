/**
 * The bench runner: dataset × servers × methods × passes, through one pool per server, every
 * answer recorded as a sample (ok or an error category), warm-up passes flagged, statistics
 * derived at the end. It emits events and knows nothing about terminals.
 */
import { EventEmitter } from 'node:events';
import os from 'node:os';
import { DatasetLine, LoadedDataset } from '../dataset/line';
import { ElectrumPool } from '../electrum/pool';
import { toElectrumError } from '../electrum/errors';
import { classify, PROFILES } from '../servers/profiles';
import { ResultsStore, SampleRow } from '../store/results';
import { computeStatistics, MethodSummary } from '../store/statistics';
import { seededShuffle } from '../random';
import { UserError } from '../user-error';
import { METHODS, MethodName } from './methods';
import { ClosedLoopScheduler, schedulerName } from './schedulers/closed-loop';
import { SelfMonitor, SelfCheck, selfCheckWarning } from './selfcheck';
import { TipFollower } from './tip';
import { ServerTarget, targetUrl } from './targets';
import { toolInfo } from './tool-info';

export interface BenchOptions {
  servers: ServerTarget[];
  datasetPath: string;
  methods: MethodName[];
  passes: number;
  warmup: number;
  shuffle: boolean;
  seed: string;
  limit?: number;
  concurrency: number;
  timeoutMs: number;
  maxLineBytes: number;
  tlsInsecure: boolean;
  caFile?: string;
  ca?: Buffer;
  verify: boolean;
}

interface Task {
  pass: number;
  addressIdx: number;
  server: number;
  method: MethodName;
}

export interface RunResult {
  runId: number;
  status: 'completed' | 'interrupted';
  summaries: Array<MethodSummary & { server: string }>;
  selfCheck: SelfCheck;
  warnings: string[];
  samples: number;
  lateReplies: number;
}

/** Grace period for in-flight calls once a stop is asked for: the issue allows 2 s in all. */
const STOP_GRACE_MS = 1500;

export class BenchRunner extends EventEmitter {
  private stopRequested = false;
  private wakeStop: (() => void) | undefined;

  constructor(
    private readonly opts: BenchOptions,
    private readonly store: ResultsStore,
  ) {
    super();
  }

  stop(): void {
    this.stopRequested = true;
    this.wakeStop?.();
  }

  /** Starts a new run, or continues `resumeRunId` from the first sample it lacks. */
  async run(dataset: LoadedDataset, resumeRunId?: number): Promise<RunResult> {
    const { opts, store } = this;
    const lines = opts.limit !== undefined ? dataset.lines.slice(0, opts.limit) : dataset.lines;
    const pools = opts.servers.map(
      (t) =>
        new ElectrumPool({
          host: t.host,
          port: t.port,
          tls: t.tls,
          tlsInsecure: opts.tlsInsecure,
          ca: opts.ca,
          timeoutMs: opts.timeoutMs,
          maxLineBytes: opts.maxLineBytes,
          max: opts.concurrency,
          clientName: `electrum-bench/${toolInfo().version}`,
        }),
    );
    const tips: TipFollower[] = [];
    try {
      const infos = await Promise.all(
        pools.map((p, i) =>
          p.start().catch((err) => {
            throw new UserError(`server ${opts.servers[i].name} (${targetUrl(opts.servers[i])}) is unreachable: ${(err as Error).message}`);
          }),
        ),
      );
      const { runId, serverIds, done } = resumeRunId === undefined
        ? this.createRun(dataset, lines, infos)
        : this.reopenRun(resumeRunId, dataset);
      store.setRun(runId);
      for (const t of opts.servers) {
        tips.push(await TipFollower.start({ host: t.host, port: t.port, tls: t.tls, tlsInsecure: opts.tlsInsecure, ca: opts.ca, timeoutMs: opts.timeoutMs }));
      }

      const total = opts.passes * lines.length * opts.servers.length * opts.methods.length;
      const tasks = this.tasks(lines.length, done);
      const monitor = new SelfMonitor();
      const started = Date.now();
      let completed = done.size;
      let samples = 0;
      let passSeen = -1;
      let finalized = false;
      this.emit('start', { runId, total, alreadyDone: done.size });

      const exec = async (task: Task): Promise<void> => {
        if (task.pass !== passSeen) {
          if (passSeen >= 0) this.emit('pass-done', { pass: passSeen, elapsedMs: Date.now() - started, completed, total });
          passSeen = task.pass;
        }
        const sample = await this.measure(task, lines[task.addressIdx], pools[task.server], serverIds[task.server], tips[task.server]);
        // A call still in flight when the stop grace ran out ends with our own disconnect: not a sample.
        if (finalized) return;
        store.add(sample);
        samples++;
        completed++;
        this.emit('sample', { completed, total, sample });
      };

      try {
        await this.runUntilStopped(opts.concurrency, tasks, exec);
      } catch (err) {
        // E.g. the database refused a write: stop every worker, keep what was stored, say so.
        finalized = true;
        this.stopRequested = true;
        store.finishRun(runId, 'failed', {});
        throw err;
      } finally {
        this.emit('end');
      }
      finalized = true;
      const selfCheck = monitor.stop();
      const interrupted = this.stopRequested && completed < total;
      const status = interrupted ? 'interrupted' : 'completed';
      store.flush();
      const stats = computeStatistics(store, runId);
      await Promise.all(pools.map((p) => p.close())); // pool statistics are final once closed
      const lateReplies = pools.reduce((n, p) => n + p.stats.lateReplies, 0);
      store.finishRun(runId, status, {
        selfcheck: { ...selfCheck, scheduler: schedulerName(opts.concurrency) },
        pool: Object.fromEntries(pools.map((p, i) => [opts.servers[i].name, p.stats])),
      });
      const byId = new Map(serverIds.map((id, i) => [id, opts.servers[i].name]));
      // Against the fastest median: that is where the generator's own stalls weigh most.
      const medians = stats.filter((s) => s.p50 !== null).map((s) => s.p50 as number);
      const warning = selfCheckWarning(selfCheck, medians.length ? Math.min(...medians) : null);
      return {
        runId,
        status,
        summaries: stats.map((s) => ({ ...s, server: byId.get(s.serverId) ?? String(s.serverId) })),
        selfCheck,
        warnings: warning ? [warning] : [],
        samples,
        lateReplies,
      };
    } finally {
      tips.forEach((t) => t.close());
      await Promise.all(pools.map((p) => p.close().catch(() => undefined)));
    }
  }

  /**
   * Runs the scheduler; once a stop is asked for, waits for in-flight calls a short grace period
   * and then gives up on them (they are not samples: nothing about them was measured to the end).
   */
  private async runUntilStopped(concurrency: number, tasks: Iterator<Task>, exec: (t: Task) => Promise<void>): Promise<void> {
    const scheduler = new ClosedLoopScheduler(concurrency);
    const running = scheduler.run(tasks, exec, () => this.stopRequested);
    const stopped = new Promise<void>((resolve) => {
      this.wakeStop = () => setTimeout(resolve, STOP_GRACE_MS).unref();
      if (this.stopRequested) this.wakeStop();
    });
    await Promise.race([running, stopped]);
  }

  private async measure(task: Task, line: DatasetLine, pool: ElectrumPool, serverId: number, tip: TipFollower): Promise<SampleRow> {
    const spec = METHODS[task.method];
    const profile = PROFILES[this.opts.servers[task.server].profile];
    const base = {
      serverId,
      pass: task.pass,
      warmup: task.pass < this.opts.warmup,
      addressIdx: task.addressIdx,
      method: task.method,
      atMs: Date.now(),
    };
    let startedNs = process.hrtime.bigint();
    try {
      const outcome = await pool.use((client) => {
        startedNs = process.hrtime.bigint();
        return client.call(spec.rpc, [line.scripthash]);
      });
      const mismatch = this.opts.verify ? spec.mismatch(outcome.result, line) : null;
      return {
        ...base,
        latencyNs: outcome.latencyNs,
        responseBytes: outcome.responseBytes,
        resultSize: spec.resultSize(outcome.result),
        status: 'ok',
        error: mismatch,
        tipHeight: tip.height,
        mismatch: this.opts.verify ? mismatch !== null : null,
      };
    } catch (err) {
      const e = classify(profile, toElectrumError(err));
      return {
        ...base,
        latencyNs: process.hrtime.bigint() - startedNs,
        responseBytes: null,
        resultSize: null,
        status: e.category,
        error: e.message,
        tipHeight: tip.height,
        mismatch: null,
      };
    }
  }

  /**
   * Pass by pass; within a pass, address by address, every server and method for one address
   * back to back, the server order rotating per address, so drift of the machine hits every
   * server alike. Already-measured tasks (a resumed run) are skipped.
   */
  private *tasks(addressCount: number, done: Set<string>): Generator<Task> {
    const { passes, servers, methods, shuffle, seed } = this.opts;
    const ids = this.serverIds;
    const natural = Array.from({ length: addressCount }, (_, i) => i);
    for (let pass = 0; pass < passes; pass++) {
      const order = shuffle ? seededShuffle(natural, `${seed}:pass:${pass}`) : natural;
      for (let k = 0; k < order.length; k++) {
        const addressIdx = order[k];
        for (let s = 0; s < servers.length; s++) {
          const server = (s + k) % servers.length;
          for (const method of methods) {
            if (done.has(`${ids[server]}:${pass}:${addressIdx}:${method}`)) continue;
            yield { pass, addressIdx, server, method };
          }
        }
      }
    }
  }

  private serverIds: number[] = [];

  private createRun(dataset: LoadedDataset, lines: DatasetLine[], infos: Array<{ software: string; protocol: string; banner?: string; features?: unknown }>) {
    const { opts } = this;
    const tool = toolInfo();
    const { runId, serverIds } = this.store.createRun(
      {
        started_at: new Date().toISOString(),
        tool_version: tool.version,
        git_commit: tool.gitCommit,
        node_version: process.version,
        host_json: JSON.stringify(hostInfo()),
        config_json: JSON.stringify(storedConfig(opts)),
        dataset_id: dataset.id,
        dataset_path: dataset.path,
        dataset_hash: dataset.hash,
        dataset_lines: lines.length,
        passes: opts.passes,
        warmup: opts.warmup,
        methods: opts.methods.join(','),
      },
      opts.servers.map((t, i) => ({
        name: t.name,
        profile: t.profile,
        url: targetUrl(t),
        software: infos[i].software,
        protocol: infos[i].protocol,
        banner: infos[i].banner ?? null,
        features_json: infos[i].features === undefined ? null : JSON.stringify(infos[i].features),
      })),
      lines,
    );
    this.serverIds = serverIds;
    return { runId, serverIds, done: new Set<string>() };
  }

  private reopenRun(runId: number, dataset: LoadedDataset) {
    const run = this.store.getRun(runId);
    if (!run) throw new UserError(`--resume: no run ${runId} in this database`);
    if (run.status === 'completed') throw new UserError(`--resume: run ${runId} is already completed`);
    if (run.dataset_hash !== dataset.hash) {
      throw new UserError(`--resume: dataset ${dataset.path} differs from the one run ${runId} started with (${run.dataset_path})`);
    }
    const byName = new Map(this.store.servers(runId).map((s) => [s.name, s.id]));
    const serverIds = this.opts.servers.map((t) => {
      const id = byName.get(t.name);
      if (id === undefined) throw new UserError(`--resume: run ${runId} has no server named ${t.name}`);
      return id;
    });
    this.serverIds = serverIds;
    this.store.markResumed(runId);
    return { runId, serverIds, done: this.store.doneKeys(runId) };
  }
}

/** What a run stores of its configuration: everything needed to resume it, nothing secret. */
export function storedConfig(opts: BenchOptions): Record<string, unknown> {
  const { ca: _ca, ...rest } = opts;
  return rest;
}

function hostInfo() {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    memoryBytes: os.totalmem(),
  };
}
