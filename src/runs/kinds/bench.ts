/**
 * Address bench (`bench`): what is particular to it around the bench runner (src/bench/runner.ts).
 * Its record is made once every server has answered (each one's software is stored with it), or a
 * resumed run's found again, a session of it recorded either way; every call's sample is stored by
 * the runner as it ends; at the end the statistics come from the stored samples (a resumed run's
 * summary counts every session's calls), an A/B run's verdicts are read back, and a `--param`
 * sweep makes one run per value. The session does the rest.
 */
import type { LoadedDataset } from '../../core/dataset-line';
import { hostInfo } from '../../core/host-info';
import { toolInfo } from '../../core/tool-info';
import { UserError } from '../../core/user-error';
import { statusOf } from '../../core/run-status';
import type { Answering } from '../../core/answering';
import { targetUrl } from '../../servers/targets';
import { replyHolds, storedIdentity, type ReplyHold } from '../../servers/reply-hold';
import { ResultsStore } from '../../store/results';
import { coldSummaries, computeStatistics, firstTouches, type ColdSummary } from '../../store/statistics';
import { coldVerdicts, type ColdVerdict } from '../../verdicts/cold';
import { benchAnswering } from '../../store/answering';
import type { ResourceTarget } from '../../resources/sampler';
import { expectedNetwork } from '../../dataset/expected-network';
import { BenchRunner, StoppedBeforeStart, storedConfig, type BenchOptions, type BenchRecords, type MeasuredCall, type RunResult } from '../../bench/runner';
import { DoneSet } from '../../bench/done-set';
import type { ColdStart } from '../../bench/cold-passes';
import type { BenchMethodName } from '../../bench/methods';
import { selfCheckWarning } from '../../bench/selfcheck';
import { summaryObject } from '../../bench/summary';
import { PlannedRunLive, type PlannedUnitEnd } from '../../engine/planned-live';
import { mapped } from '../../engine/sinks/unit-sink';
import { runSweep, type Sweep } from '../../engine/sweep';
import { benchAbVerdicts } from '../../verdicts/bench';
import type { AbVerdicts } from '../../verdicts/comparison';
import type { ObservedReplies } from '../../core/observed-replies';
import { ensureReachable } from '../reachable';
import { prepareSampling } from '../resource-sampling';
import { stoppedCode } from '../exit-code';
import { RunSession } from '../session';
import type { WatchPlan } from '../outputs';
import type { RunOutcome } from '../outcome';

export interface BenchRun {
  opts: BenchOptions;
  /** A resumed run's number in --db; its options are the stored ones. */
  resume?: number;
  dataset: LoadedDataset;
  db: string;
  watch: WatchPlan;
  title: string;
  resources: ResourceTarget[];
  sampleEveryS: number;
  /** --param: one run per value of a lab server's setting. */
  sweep: Sweep | null;
  /** --cold (the options say so): how the servers are made cold before each cold pass. */
  coldStart?: ColdStart;
  failOnPct?: number;
  ignoreUnanswered: boolean;
  /** Follows a runner's events (a progress bar). */
  observe?: (runner: BenchRunner) => void;
  /** Each run's outcome, as it ends (a sweep has several). */
  print: (outcome: RunOutcome<BenchDetail>) => void;
  log: (line: string) => void;
}

export interface BenchDetail {
  result?: BenchResult;
  costs?: string;
  /** An A/B run's verdicts (src/verdicts/bench.ts). */
  ab?: AbVerdicts;
  failOnPct?: number;
  /** Stopped before measuring began: nothing was written. */
  stoppedBeforeStart?: string;
}

/** The whole of a bench's session: outputs claimed, the servers reached, one run (or one per swept value), each printed as it ends. */
export async function benchSession(run: BenchRun): Promise<number> {
  const session = await RunSession.claim({ db: run.db, watch: run.watch, title: run.title, ignoreUnanswered: run.ignoreUnanswered });
  try {
    // Every server answers, on the dataset's chain, before the database is touched.
    // What each showed there of held replies (the run's one look) goes with its record; a resumed run has its own.
    const said = run.resume === undefined ? await ensureReachable(run.opts.servers, run.opts, expectedNetwork(run.opts.datasetPath, run.dataset.lines)) : new Map<string, { replies?: ObservedReplies }>();
    const store = session.openStore();
    // Said on every run it applies to (a resumed one too): its latencies come from an unverified peer.
    if (run.opts.tlsInsecure && run.opts.servers.some((t) => t.tls)) run.log('electrum-bench: warning: --tls-insecure: server certificates are not verified');
    let runner: BenchRunner | undefined;
    session.onStop(
      () => runner?.stop(),
      () => runner?.flushNow(),
    );
    const measure = async (opts: BenchOptions): Promise<number> => {
      const outcome = await measureOnce(session, store, run, opts, said, (r) => (runner = r));
      run.print(outcome);
      return session.finish(outcome);
    };
    if (!run.sweep) return await measure(run.opts);
    const code = await runSweep(run.sweep, (settings) => measure({ ...run.opts, serverSettings: settings }), {
      stopped: () => (session.stopped ? stoppedCode(session.stoppedBy) : null),
      log: (line) => run.log(`[bench] ${line}`),
    });
    if (code === 0) run.log(`[bench] one run per value of ${run.sweep.name}; compare them with: npm run report -- --db ${run.db} ${run.sweep.values.map(() => '--run ID').join(' ')}`);
    return code;
  } finally {
    await session.close();
  }
}

async function measureOnce(session: RunSession, store: ResultsStore, run: BenchRun, opts: BenchOptions, said: ReadonlyMap<string, { replies?: ObservedReplies }>, started: (r: BenchRunner) => void): Promise<RunOutcome<BenchDetail>> {
  const servers = opts.servers.map((t) => t.name);
  const live = session.outputs.empty ? undefined : new PlannedRunLive(session.outputs, { passes: opts.passes, warmup: opts.warmup, concurrency: opts.concurrency, servers }, () => measure.stop());
  const measure = new BenchMeasure(store, opts, { resume: run.resume, sinks: live ? [mapped(live, callEnd)] : [], record: (make) => session.record(make), stopped: () => session.stopped, coldStart: run.coldStart, said });
  const { runner } = measure;
  started(runner);
  run.observe?.(runner);
  if (live) {
    runner.once('start', ({ total, alreadyDone }: { total: number; alreadyDone: number }) => live.start(total, alreadyDone));
    runner.on('call', ({ server }: { server: string }) => live.started(server));
  }
  const sampling = run.resources.length ? prepareSampling(store.db, 'bench', run.resources, run.sampleEveryS) : undefined;
  let sampledRun = 0;
  if (sampling) {
    runner.once('start', ({ runId }: { runId: number }) => {
      sampling.start(runId);
      sampledRun = runId;
    });
  }
  let result: BenchResult;
  let costs: string | undefined;
  try {
    await sampling?.ready;
    result = await measure.run(run.dataset);
  } catch (err) {
    if (err instanceof StoppedBeforeStart) {
      return { kind: 'bench', runId: null, db: run.db, status: 'interrupted', answering: [], thresholds: [], regressed: [], json: { status: 'interrupted' }, detail: { stoppedBeforeStart: err.message } };
    }
    throw err;
  } finally {
    costs = await sampling?.stop(store.callsPerServer(sampledRun));
    await live?.stop();
  }
  const ab = result.status === 'completed' && opts.baseline !== undefined ? benchAbVerdicts(store, result.runId, run.failOnPct) : undefined;
  return {
    kind: 'bench',
    runId: result.runId,
    db: run.db,
    status: result.status,
    answering: result.answering,
    thresholds: [],
    regressed: ab?.regressed ?? [],
    json: { ...summaryObject(result, run.db), answering: result.answering, replyHolds: result.replyHolds, ...(opts.cold ? { cold: coldObject(result.cold), coldVerdicts: result.coldVerdicts } : {}) },
    detail: { result, costs, ab, failOnPct: run.failOnPct },
  };
}

/**
 * A bench run's result: the runner's summary from the stored samples (the warm passes'), each
 * server's answering, ElectrumX's reply hold where its latencies contain it, and a --cold run's
 * cold passes beside the warm ones.
 */
export type BenchResult = RunResult & { answering: Answering[]; replyHolds: ReplyHold[]; cold: ServerColdSummary[]; coldVerdicts: ColdVerdict[] };

export type ServerColdSummary = ColdSummary & { server: string };

/**
 * One bench run measured into `store`: its record made (or a resumed one found) once every server
 * answered, the plan run, the run finished by the one status rule, its summary from the stored
 * samples. The session gives it the record's wrapper and its stops; a test can run it bare.
 */
export class BenchMeasure {
  readonly runner: BenchRunner;

  constructor(
    private readonly store: ResultsStore,
    private readonly opts: BenchOptions,
    private readonly o: {
      resume?: number;
      sinks?: ConstructorParameters<typeof BenchRunner>[2];
      record?: <R extends { runId: number }>(make: () => R) => R;
      /** Whether a stop was asked for besides this measure's own stop(). */
      stopped?: () => boolean;
      coldStart?: ColdStart;
      /** What each server showed of held replies before the run (runs/reachable.ts), stored with a new record. */
      said?: ReadonlyMap<string, { replies?: ObservedReplies }>;
    } = {},
  ) {
    this.runner = new BenchRunner(opts, store, o.sinks ?? [], o.coldStart);
  }

  private stopAsked = false;

  stop(): void {
    this.stopAsked = true;
    this.runner.stop();
  }

  async run(dataset: LoadedDataset): Promise<BenchResult> {
    const { store, opts } = this;
    const record = this.o.record ?? ((make) => make());
    const end = await this.runner.run(dataset, records(store, opts, dataset, this.o.resume, record, this.o.said, this.o.coldStart?.processes));
    const stopped = this.stopAsked || (this.o.stopped?.() ?? false);
    const status = statusOf({ failed: end.failure !== undefined, aborted: false, stopped, planDone: end.planDone });
    store.finishRun(end.runId, status, { selfcheck: { ...end.selfCheck, scheduler: end.scheduler }, pool: end.pool });
    if (end.failure !== undefined) throw end.failure;
    const stats = computeStatistics(store, end.runId);
    const warning = selfCheckWarning(end.selfCheck);
    const named = <T extends { serverId: number }>(s: T) => ({ ...s, server: end.serverNames.get(s.serverId) ?? String(s.serverId) });
    const cold = coldSummaries(store, end.runId).map(named);
    return {
      runId: end.runId,
      status,
      summaries: stats.map(named),
      cold,
      coldVerdicts: cold.length ? coldVerdicts(firstTouches(store, end.runId).map(named)) : [],
      selfCheck: end.selfCheck,
      warnings: warning ? [warning] : [],
      samples: end.samples,
      lateReplies: end.lateReplies,
      order: opts.order ?? 'address',
      answering: benchAnswering(store, end.runId, opts.servers.map((t) => t.name), opts.timeoutMs),
      replyHolds: replyHolds(store.servers(end.runId).map(storedIdentity)),
    };
  }
}

/** The run's record: a new one once every server answered, or the resumed one found and checked; a session of it recorded. */
function records(
  store: ResultsStore,
  opts: BenchOptions,
  dataset: LoadedDataset,
  resume: number | undefined,
  record: <R extends { runId: number }>(make: () => R) => R,
  said?: ReadonlyMap<string, { replies?: ObservedReplies }>,
  processes?: ReadonlyMap<string, string>,
): BenchRecords {
  const setupOf = (name: string): string | null => {
    const setup = { ...(said?.get(name)?.replies === undefined ? {} : { replies: said.get(name)!.replies }), ...(processes?.has(name) ? { process: processes.get(name) } : {}) };
    return Object.keys(setup).length ? JSON.stringify(setup) : null;
  };
  return {
    open: (lines, infos) => {
      const opened = record(() => {
        if (resume !== undefined) return reopenRun(store, resume, dataset, opts, infos);
        const tool = toolInfo();
        const { runId, serverIds } = store.createRun(
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
            call_order: opts.order,
          },
          opts.servers.map((t, i) => ({
            name: t.name,
            profile: t.profile,
            url: targetUrl(t),
            software: infos[i].software,
            protocol: infos[i].protocol,
            banner: infos[i].banner ?? null,
            features_json: infos[i].features === undefined ? null : JSON.stringify(infos[i].features),
            setup_json: setupOf(t.name),
          })),
          lines,
        );
        return { runId, serverIds, done: new DoneSet(opts.passes, lines.length, opts.servers.length, opts.methods.length) };
      });
      const tool = toolInfo();
      store.addSession(opened.runId, {
        tool_version: tool.version,
        git_commit: tool.gitCommit,
        servers: opts.servers.map((t, i) => ({ name: t.name, software: infos[i].software, protocol: infos[i].protocol })),
      });
      return opened;
    },
  };
}

/** A resumed run: the same dataset, the same servers in the same versions, and what it has measured already. */
function reopenRun(store: ResultsStore, runId: number, dataset: LoadedDataset, opts: BenchOptions, infos: Array<{ software: string }>) {
  const run = store.getRun(runId);
  if (!run) throw new UserError(`--resume: no run ${runId} in this database`);
  if (run.status === 'completed') throw new UserError(`--resume: run ${runId} is already completed`);
  if (run.dataset_hash !== dataset.hash) {
    throw new UserError(`--resume: dataset ${dataset.path} differs from the one run ${runId} started with (${run.dataset_path})`);
  }
  const byName = new Map(store.servers(runId).map((s) => [s.name, s]));
  const serverIds = opts.servers.map((t, i) => {
    const stored = byName.get(t.name);
    if (stored === undefined) throw new UserError(`--resume: run ${runId} has no server named ${t.name}`);
    // One run measures one version of each server: an upgrade in between would mix two in one figure.
    if (stored.software !== null && stored.software !== infos[i].software) {
      throw new UserError(
        `--resume: server ${t.name} now reports ${JSON.stringify(infos[i].software)}, but run ${runId} measured ${JSON.stringify(stored.software)}; start a new run to measure it`,
      );
    }
    return stored.id;
  });
  store.claimRun(runId);
  const done = new DoneSet(opts.passes, run.dataset_lines, opts.servers.length, opts.methods.length);
  const serverIndex = new Map(serverIds.map((id, i) => [id, i]));
  store.forEachDone(runId, (serverId, pass, addressIdx, method) => {
    const s = serverIndex.get(serverId);
    const m = opts.methods.indexOf(method as BenchMethodName);
    if (s !== undefined && m >= 0 && pass < opts.passes && addressIdx < run.dataset_lines) done.add(s, pass, addressIdx, m);
  });
  return { runId, serverIds, done };
}

/** A --cold run's cold figures as --json prints them: per server and method, the cold passes beside the warm ones. */
function coldObject(cold: ServerColdSummary[]) {
  return cold.map((c) => ({
    server: c.server,
    method: c.method,
    n: c.n,
    ok: c.nOk,
    latencyNs: { p50: c.p50, p90: c.p90, p99: c.p99, max: c.max },
    warmP50Ns: c.warmP50,
    errors: c.errors,
    firstTouches: { calls: c.firstTouches, sumNs: c.firstTouchSumNs, warmMeanSumNs: c.warmMeanSumNs, warmMedianSumNs: c.warmMedianSumNs },
  }));
}

/** A call's sample as the watchers take it (--dashboard, --out). */
function callEnd({ sample, server, done }: MeasuredCall): PlannedUnitEnd {
  return { server, unit: sample.method, end: { outcome: sample.status, durationNs: Number(sample.latencyNs), bytes: sample.responseBytes ?? 0 }, pass: sample.pass, done };
}
