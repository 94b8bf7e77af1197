/**
 * Request load (`load`): what is particular to it around the engine's runner. Its servers one
 * after another (or in turns, `--interleave`, or by `--find-max`'s steps), each second stored and
 * judged by the thresholds, an A/B run's verdicts read back from what it stored, and a
 * coordinated test's shards met, started together and merged by shard 1. The session does the rest.
 */
import type { ObservedReplies } from '../../core/observed-replies';
import type { DatasetLine } from '../../core/dataset-line';
import type { Mix, IntervalRecord } from '../../core/load-types';
import { formatShard, type Shard } from '../../core/shard';
import { pinningText } from '../../core/cpu-set';
import { answeringOf, unreachedAnswering } from '../../core/answering';
import { readStoppedAnswering } from '../../core/stopped-answering';
import { UserError } from '../../core/user-error';
import { fileAboutToBeCreated } from '../../core/created-file';
import { targetUrl, type ServerTarget } from '../../servers/targets';
import type { LoadModel } from '../../engine/executors/registry';
import { executorFor } from '../../engine/executors/registry';
import type { FindMaxOptions, FindMaxResult } from '../../engine/find-max';
import { describeSearch, stepLine } from '../../engine/find-max';
import type { CoordinatorAddress } from '../../engine/coordinator';
import { LoadRunner, type LoadOptions, type ServerResult } from '../../engine/runner';
import { serversInTurn } from '../../engine/servers-in-turn';
import { serversInTurns } from '../../engine/interleave';
import type { LiveCounts } from '../../engine/sinks/hdr-intervals';
import { storedOutcome, summarise, type ServerSummary } from '../../engine/summary';
import { LoadStore } from '../../store/load-results';
import { loadAbVerdicts, type LoadAbVerdicts } from '../../verdicts/load';
import { toolInfo } from '../../core/tool-info';
import type { ResourceTarget } from '../../resources/sampler';
import { createThresholdTracker, type ThresholdResult } from '../../load/thresholds';
import { intervalLine, loadReplyHolds } from '../../load/summary';
import { expectedNetwork } from '../../dataset/expected-network';
import { asShard, mergeTest, sendResults, type CoordinatedShard } from '../coordinated';
import { ensureReachable } from '../reachable';
import { testIdentity } from '../test-identity';
import { prepareSampling } from '../resource-sampling';
import { pinGenerator, raiseGenerator } from '../pin';
import { RunSession } from '../session';
import { preflight, requestLoadDemands, type ServerLimits } from '../doctor';
import type { WatchPlan } from '../outputs';
import type { RunOutcome } from '../outcome';

/** What `load` runs, every option checked (src/cli/load-plan.ts). */
export interface LoadPlan extends WatchPlan {
  /** This process's share of the model (a shard's users or iterations). */
  model: LoadModel;
  durationMs: number;
  findMax?: FindMaxOptions;
  mix: Mix;
  shard?: Shard;
  /** Sockets per server, already this shard's share. */
  connections: number;
  /** Sockets per server in the whole test (every shard's); absent: `connections`. */
  testConnections?: number;
  pipeline: number;
  timeoutMs: number;
  maxLineBytes: number;
  sourceAddresses: string[];
  startAtMs?: number;
  /** --coordinator: this shard is one of a coordinated test (shard 1 coordinates). */
  coordinator?: CoordinatorAddress;
  /** How long the coordinator waits for every shard to register, and a shard for the coordinator. */
  readyTimeoutMs: number;
  thresholds: string[];
  /** --cpu: the CPUs the generator is pinned to before it starts. */
  cpus?: number[];
  /** --realtime: the generator made real-time before it starts (src/core/realtime.ts). */
  realtime?: boolean;
  /** --interleave: the servers take turns of this long (src/engine/interleave.ts). */
  turnMs?: number;
  /** --baseline: the server every other is judged against, turn by turn (an A/B run). */
  baseline?: string;
  /** --fail-on-regression: exit 99 when a verdict is slower by more than this percent. */
  failOnRegressionPct?: number;
}

/** The plan with what the command resolved: servers, the dataset's lines for this shard, files read. */
export interface LoadRun {
  plan: LoadPlan;
  servers: ServerTarget[];
  lines: DatasetLine[];
  dataset: { file: string; hash: string };
  tlsInsecure: boolean;
  ca?: Buffer;
  seed: string;
  samples: boolean;
  resources: ResourceTarget[];
  sampleEveryS: number;
  /** A line per second on stderr. */
  progress: boolean;
  db: string;
  summaryExport?: string;
  ignoreUnanswered: boolean;
  /** The options as parsed: a coordinated test's shards must have been given the same. */
  testOptions: Record<string, unknown>;
  /** What the dashboard's header names. */
  title: string;
  /** What is known of each server's limits, for the pre-flight doctor (absent: nothing); `strictLimits` refuses a plan over one. */
  limits?: ServerLimits;
  strictLimits?: boolean;
  log: (line: string) => void;
}

/** What the printer needs of a request load besides the outcome's common part. */
export interface LoadDetail {
  /** This process's part: a shard's own (the coordinator prints the whole), or the whole run. */
  part: 'run' | 'shard' | 'merged';
  summaries: ServerSummary[];
  searches: FindMaxResult[];
  turns?: { turnMs: number; durationMs: number; servers: string[] };
  ab?: LoadAbVerdicts;
  /** --fail-on-regression, as the regressions were judged. */
  failOnPct?: number;
  /** What the servers spent, when their resources were sampled. */
  costs?: string;
  aborted: string | null;
  shard?: string;
  /** A merged coordinated test: its shards' count and start skew. */
  merged?: { shards: number; startSkew: Record<string, { skewMs: number; shards: number }> };
  /** Stopped while the first server's connections opened: nothing was measured. */
  stoppedBeforeStart?: string;
}

/**
 * The whole of a request load's session: outputs claimed, the test's shards met (a coordinated
 * test), the run measured, its outcome finished. Returns the outcome and its exit code.
 */
export async function loadSession(run: LoadRun): Promise<{ outcome: RunOutcome<LoadDetail>; code: number }> {
  const { plan } = run;
  // Before anything is claimed or connected: a plan over a known limit is said (or refused) first.
  const demands = requestLoadDemands({ connections: plan.connections, testConnections: plan.testConnections ?? plan.connections, sourceAddresses: plan.sourceAddresses, mix: plan.mix, lines: run.lines });
  const limitWarnings = preflight(run.servers, demands, run.limits ?? new Map(), run.strictLimits ?? false, run.log);
  // A coordinated test's shards other than 1 write no --db: their run goes to the coordinator.
  const writesDb = plan.coordinator === undefined || plan.shard?.index === 1;
  // First of all the test's shards meet, so that one which cannot go on fails the whole test at once.
  const meet = plan.coordinator && { address: plan.coordinator, shard: plan.shard!, readyTimeoutMs: plan.readyTimeoutMs };
  return RunSession.run({ db: writesDb ? run.db : null, summaryExport: run.summaryExport, watch: plan, title: run.title, ignoreUnanswered: run.ignoreUnanswered }, (session) =>
    asShard(meet, run.testOptions, (test, handOver) => measure(session, run, test, handOver, limitWarnings)),
  );
}

async function measure(session: RunSession, run: LoadRun, test: CoordinatedShard | undefined, handOver: () => void, limitWarnings: string[]): Promise<RunOutcome<LoadDetail>> {
  const { plan } = run;
  const names = run.servers.map((t) => t.name);
  const opts: LoadOptions = {
    servers: run.servers,
    lines: run.lines,
    mix: plan.mix,
    model: plan.model,
    durationMs: plan.durationMs,
    connections: plan.connections,
    pipeline: plan.pipeline,
    timeoutMs: plan.timeoutMs,
    maxLineBytes: plan.maxLineBytes,
    tlsInsecure: run.tlsInsecure,
    ca: run.ca,
    seed: plan.shard ? `${run.seed}:shard:${plan.shard.index}/${plan.shard.count}` : run.seed,
    sourceAddresses: plan.sourceAddresses,
    shard: plan.shard,
    startAtMs: plan.startAtMs,
    samples: run.samples,
  };
  const search = plan.findMax;
  // A coordinated test is judged once, on the merged run, by its coordinator.
  const tracker = plan.thresholds.length && !test ? createThresholdTracker(plan.thresholds, { servers: names }) : undefined;
  if (run.tlsInsecure && run.servers.some((t) => t.tls)) run.log('electrum-bench: warning: --tls-insecure: server certificates are not verified');
  // What each showed there of held replies is the run's one look at them (runs/reachable.ts).
  const said = await ensureReachable(run.servers, opts, expectedNetwork(run.dataset.file, run.lines));
  await test?.coordinator?.awaitShards(Math.max(0, test.readyBy - Date.now()), plan.readyTimeoutMs);
  if (test) opts.rendezvous = (server) => test.link.rendezvous(server);
  // Pinned once every input is checked, before the first thread the run starts (they inherit it).
  const cpus = plan.cpus ? pinGenerator(plan.cpus, run.log) : undefined;
  const realtime = plan.realtime ? raiseGenerator(run.log) : undefined;

  const results = session.openStore(test ? test.database : run.db);
  const store = new LoadStore(results);
  const runner = new LoadRunner(opts);
  handOver();
  session.onStop(() => {
    runner.stop();
    // A coordinator's stop is the test's: the shards end too, and their part is merged.
    test?.coordinator?.stopAll();
  });
  if (test) {
    test.shardLink?.onStop(() => session.requestStop());
    runner.on('schedule-start', ({ server, epochMs }: { server: string; epochMs: number }) => test.link.started(server, epochMs));
    const callOff = (reason: string) => runner.abort(`the coordinated test was called off: ${reason}`);
    test.shardLink?.onAbort(callOff);
    test.coordinator?.onFailure((reason) => {
      callOff(reason);
      test.coordinator!.abort(reason);
    });
  }
  const tool = toolInfo();
  const { ca: _ca, lines: _lines, ...config } = opts;
  const { runId, serverIds } = session.record(
    () =>
      store.createRun(
        {
          tool_version: tool.version,
          git_commit: tool.gitCommit,
          config: { ...config, thresholds: plan.thresholds, dataset: run.dataset.file, cpus, realtime, ...turnsConfig(plan), ...(limitWarnings.length ? { limitWarnings } : {}), test: opts.shard && testIdentity(run.testOptions, run.servers, run.dataset.hash) },
          model: opts.model,
          model_text: search ? describeSearch(search) : executorFor(opts.model).describe(opts.model),
          dataset_path: run.dataset.file,
          dataset_hash: run.dataset.hash,
          shard: opts.shard ? `${opts.shard.index}/${opts.shard.count}` : null,
        },
        run.servers.map((t) => ({ name: t.name, profile: t.profile, url: targetUrl(t), software: null, protocol: null })),
      ),
    opts.shard ? formatShard(opts.shard) : null,
  );

  type Second = { server: string; record: IntervalRecord; live: LiveCounts; samples: Parameters<LoadStore['addSamples']>[2]; step: number | null };
  runner.on(
    'interval',
    session.seconds<Second>({
      store: ({ server, record, samples, step }) => {
        store.addInterval(runId, serverIds.get(server)!, record, step);
        if (samples.length) store.addSamples(runId, serverIds.get(server)!, samples);
      },
      record: (s) => s.record,
      judge: tracker
        ? (record) => {
            tracker.observe(record as IntervalRecord);
            const abort = tracker.shouldAbort();
            return {
              live: session.outputs.empty ? undefined : { thresholds: tracker.results() },
              abort: abort ? `threshold ${abort.threshold} failed on ${abort.server} (abortOnFail)` : undefined,
            };
          }
        : undefined,
      abort: (reason) => runner.abort(reason),
      progress: run.progress ? (s) => intervalLine(s.record, s.live) : undefined,
      log: run.log,
    }),
  );

  const sampling = run.resources.length ? prepareSampling(results.db, 'load', run.resources, run.sampleEveryS) : undefined;
  await sampling?.ready;
  sampling?.start(runId);
  const repliesOf = (name: string): ObservedReplies | null => said.get(name)?.replies ?? null;
  const serverDone = (target: { name: string }, r: { software: string | null; protocol: string | null }) =>
    store.setServerInfo(serverIds.get(target.name)!, r.software, r.protocol, repliesOf(target.name));
  const done = plan.turnMs
    ? await serversInTurns(runner, opts.servers, { totalMs: plan.durationMs, turnMs: plan.turnMs }, { server: serverDone })
    : await serversInTurn(runner, opts.servers, search, { step: (target, s) => run.log(stepLine(target, s, search!)), server: serverDone }, !opts.shard);
  const { results: outcomes, failure } = done;
  const searches = 'searches' in done ? done.searches : [];
  // A search's figure is about the server only if the two did not share CPUs: each says where they ran.
  for (const f of searches) f.pinning = pinningText(cpus, run.resources.filter((t) => (t.servers ?? [t.name]).includes(f.server)));
  // Per request only for a single profile per server: a search's steps are not all kept here.
  const costs = await sampling?.stop(search ? new Map() : new Map(outcomes.map((o) => [o.server, o.totals.sent])));
  const summaries = outcomes.map((o) => ({ ...summarise(o), replies: repliesOf(o.server) }));
  // A search's summary is of its last step; whether the server answered is of every step, as is
  // what the run's record keeps for the report (which reads every step's seconds).
  const searched = new Map([...('searched' in done ? done.searched : new Map<string, ServerResult>())].map(([name, r]) => [name, summarise(r)]));
  const answeredOver = (s: ServerSummary): ServerSummary => searched.get(s.server) ?? s;
  // An A/B run's verdicts, from its seconds as stored, go with each judged server's outcomes.
  const ab = plan.baseline !== undefined && !failure ? loadAbVerdicts(results, runId, plan.failOnRegressionPct) : undefined;
  for (const s of summaries) store.setServerOutcome(serverIds.get(s.server)!, { ...storedOutcome(answeredOver(s)), ...(ab?.byServer.has(s.server) ? { abVerdicts: ab.byServer.get(s.server) } : {}) });
  // A server that went down before its turn: given nothing, kept with why, for the report to say.
  const unreached = 'unreached' in done ? done.unreached : [];
  for (const u of unreached) store.setServerOutcome(serverIds.get(u.server)!, { outcomes: {}, scheduled: 0, sent: 0, answered: 0, unreached: u.why });
  const thresholds: ThresholdResult[] = tracker?.results() ?? [];
  // A stop after the schedule was done still leaves a run with every outcome.
  const status = session.statusOf({ failed: failure !== undefined, aborted: runner.aborted !== null, planDone: !runner.stopped });
  store.finishRun(runId, {
    status,
    generatorBound: outcomes.some((o) => o.generator.bound),
    generator: Object.fromEntries(outcomes.map((o) => [o.server, o.generator])),
    thresholds,
    findMax: search ? searches : undefined,
  });
  session.closeStore();
  if (failure) throw failure;
  const answered = summaries.map(answeredOver).map((s) => answeringOf(s.server, s.outcomes, { unit: 'request', timeoutMs: plan.timeoutMs, stoppedAnswering: s.stoppedAnswering }));
  const notLoaded = unreached.map((u) => unreachedAnswering(u.server, u.why));
  // In the run's server order.
  const answering = names.flatMap((n) => [...answered, ...notLoaded].filter((a) => a.server === n));
  const detail: LoadDetail = { part: 'run', summaries, searches, ab, failOnPct: plan.failOnRegressionPct, costs, aborted: runner.aborted };
  const outcome = (json: Record<string, unknown>, d: Partial<LoadDetail> = {}): RunOutcome<LoadDetail> => ({
    kind: 'load',
    runId,
    db: run.db,
    status,
    answering,
    thresholds,
    regressed: status === 'completed' ? (ab?.regressed ?? []) : [],
    json,
    detail: { ...detail, ...d },
  });
  if (status === 'interrupted' && outcomes.length === 0) {
    // Stopped while the first server's connections opened: nothing was measured.
    const kept = session.createdDatabase ? 'nothing was written' : `run ${runId} is recorded in ${run.db} as interrupted, with no results`;
    if (session.createdDatabase) session.discard();
    return outcome({ runId, status }, { stoppedBeforeStart: kept });
  }
  if (test) return finishCoordinated(session, run, test, outcome, { summaries, runId, status, aborted: runner.aborted });
  const turns = plan.turnMs !== undefined ? { turnMs: plan.turnMs, baseline: plan.baseline, verdicts: ab ? [...ab.byServer.values()].flat() : undefined } : undefined;
  const json = { runId, db: run.db, status, model: search ? 'find-max' : opts.model, servers: summaries, answering, replyHolds: loadReplyHolds(summaries), findMax: search ? searches : undefined, thresholds, aborted: runner.aborted, interleaved: turns };
  return outcome(json, plan.turnMs !== undefined ? { turns: { turnMs: plan.turnMs, durationMs: plan.durationMs, servers: names } } : {});
}

/**
 * The end of a coordinated shard: called off → the reason in one line, exit 2; shards 2..N hand
 * over their database (their outcome is their own part); shard 1 merges every shard's and its
 * outcome is the whole test's, judged on the whole.
 */
async function finishCoordinated(
  session: RunSession,
  run: LoadRun,
  test: CoordinatedShard,
  outcome: (json: Record<string, unknown>, d?: Partial<LoadDetail>) => RunOutcome<LoadDetail>,
  own: { summaries: ServerSummary[]; runId: number; status: string; aborted: string | null },
): Promise<RunOutcome<LoadDetail>> {
  const { plan } = run;
  const shard = plan.shard!;
  if (own.aborted) throw new UserError(`shard ${formatShard(shard)}: ${own.aborted}; nothing was merged`);
  // In-flight requests drain for at most the timeout after a schedule ends: beyond that (and the
  // time to register) a shard's results are not coming.
  const resultsTimeoutMs = plan.readyTimeoutMs + plan.timeoutMs + 30_000;
  if (test.shardLink) {
    await sendResults(test, shard, resultsTimeoutMs);
    return { ...outcome({ shard: formatShard(shard), status: own.status, servers: own.summaries }, { part: 'shard', shard: formatShard(shard) }), db: null };
  }
  const created = fileAboutToBeCreated(run.db);
  let merged: Awaited<ReturnType<typeof mergeTest>>;
  try {
    merged = await mergeTest(test, shard, run.db, plan.thresholds, resultsTimeoutMs);
  } catch (err) {
    created?.remove();
    throw err;
  }
  const whole = outcome(merged.json, { part: 'merged', merged: { shards: shard.count, startSkew: merged.startSkew } });
  // The whole test's answering, from each server's outcomes over every shard.
  const answering = (merged.json.servers as Array<Record<string, unknown>>).map((s) =>
    answeringOf(String(s.server), (s.outcomes ?? {}) as Record<string, number>, { unit: 'request', timeoutMs: plan.timeoutMs, stoppedAnswering: readStoppedAnswering(s.stoppedAnswering) }),
  );
  return { ...whole, runId: merged.runId, status: merged.status as RunOutcome['status'], thresholds: merged.thresholds, answering };
}

/** What an interleaved run records of its turns in its config (the report reads it back: src/report/load-read.ts). */
function turnsConfig(plan: Pick<LoadPlan, 'turnMs' | 'baseline'>): Record<string, unknown> {
  if (plan.turnMs === undefined) return {};
  return { turnMs: plan.turnMs, ...(plan.baseline !== undefined ? { baseline: plan.baseline } : {}) };
}
