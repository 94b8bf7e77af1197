/**
 * Wallet load (`load --workload`): what is particular to it around the wallet runner
 * (src/wallet/load.ts): wallets held, arriving and notified of blocks, each server's seconds
 * stored and sent to the outputs with the wallets held by then, the blocks made here or (a
 * coordinated test's other shards) learnt from shard 1, and shard 1 merging every shard's run.
 * The session does the rest.
 */
import { formatShard, shareOf, type Shard } from '../../core/shard';
import { answeringOf } from '../../core/answering';
import { UserError } from '../../core/user-error';
import { toolInfo } from '../../core/tool-info';
import { fileAboutToBeCreated } from '../../core/created-file';
import { formatServerUrl } from '../../core/server-address';
import type { AnyIntervalRecord } from '../../core/load-types';
import type { LoadedWallets, WalletLine } from '../../core/wallet-line';
import type { ServerTarget } from '../../servers/targets';
import { executorFor, type LoadModel } from '../../engine/executors/registry';
import { stepLine, type FindMaxOptions, type FindMaxResult } from '../../engine/find-max';
import type { CoordinatorAddress } from '../../engine/coordinator';
import { LoadStore } from '../../store/load-results';
import { WalletStore } from '../../store/wallets';
import { walletsNetwork } from '../../dataset/expected-network';
import { CoordinatorBlocks, LocalBlocks, ShardBlocks, type BlockMaker } from '../../wallet/blocks';
import { serverStoppedAnswering, WalletLoad, type HeldSearchResult, type ServerLoadSummary, type WalletLoadDone, type WalletLoadOptions } from '../../wallet/load';
import type { Workload } from '../../wallet/workloads';
import { asShard, mergeWalletTest, sendResults, type CoordinatedShard } from '../coordinated';
import { reachedIdentity, replyHolds, setupsWithReplies, type ReplyHold } from '../../servers/reply-hold';
import { ensureReachable } from '../reachable';
import { testIdentity } from '../test-identity';
import { pinGenerator, raiseGenerator } from '../pin';
import { RunSession } from '../session';
import { preflight, walletDemands, type Demand, type ServerLimits } from '../doctor';
import type { WatchPlan } from '../outputs';
import type { RunOutcome } from '../outcome';
import type { ResourceRow, ResourceTarget } from '../../resources/sampler';
import { prepareSampling } from '../resource-sampling';
import { abuseRecords, addServerPhases } from '../abuse-phases';
import { AbuseStore } from '../../store/abuse';

/** What `load --workload` runs, every option checked in one step (src/cli/wallet-load.ts). */
export interface WalletLoadPlan {
  workload: Workload;
  hold: number;
  arrivals?: { model: LoadModel; durationMs: number };
  /** --find-max: the highest arrival rate whose time to synced meets --slo. */
  search?: FindMaxOptions;
  /** --find-max --slo-notify: the most held wallets told of a block within the SLO. */
  notifySearch?: WalletLoadOptions['notifySearch'];
  /** Blocks are mined (--notify, or the held search's). */
  notify: boolean;
  notifyWaitMs: number;
  naturalWaitMs: number;
  cpus?: number[];
  /** --realtime: the generator made real-time before it starts (src/core/realtime.ts). */
  realtime?: boolean;
  watch: WatchPlan;
  /** --abuse: a profile beside the arriving wallets, from --abuse-at for --abuse-for. */
  abuse?: WalletLoadOptions['abuse'];
  /** --i-operate-this-server: the user operates every target (recorded with the run). */
  operated?: boolean;
  /** --shard I/N --coordinator HOST:PORT: this process holds and notifies its share of one test's wallets. */
  coordinated?: { shard: Shard; coordinator: CoordinatorAddress; readyTimeoutMs: number };
}

/** A block maker as the command found it: the lab's miner, a regtest node's (--mine-via), or natural blocks. */
export type DescribedBlockMaker = BlockMaker & { describe: string; note?: string };

/** The plan with what the command resolved: servers, wallets, files read, and the lab's parts. */
export interface WalletLoadRun {
  plan: WalletLoadPlan;
  servers: ServerTarget[];
  wallets: LoadedWallets;
  /** The wallets the run uses (--wallet-max-txs). */
  chosen: WalletLine[];
  walletMaxTxs?: number;
  holdConcurrency: number;
  /** Blocks per server, and held wallets paid in each. */
  blocks: number;
  payWallets: number;
  /** The whole test's --rate, as recorded. */
  rate?: number;
  tlsInsecure: boolean;
  ca?: Buffer;
  timeoutMs: number;
  maxLineBytes: number;
  db: string;
  summaryExport?: string;
  ignoreUnanswered: boolean;
  testOptions: Record<string, unknown>;
  title: string;
  /** How each server was set up (the lab's polling), by target name. */
  setups: Map<string, unknown>;
  /** Makes blocks here (shard 1 of a coordinated test, or a run alone), asked only when blocks are mined. */
  blockMaker: () => Promise<DescribedBlockMaker>;
  /** The server process's RSS, where it is known (lab servers). */
  rssOf?: (server: string) => Promise<number | null>;
  /**
   * With --abuse: the processes sampled beside the run (a lab server's, or --server-pid's), each
   * naming in `servers` the run's servers it serves; a server none serves is said not sampled.
   */
  resources?: ResourceTarget[];
  sampleEveryS?: number;
  /** Lines said before the run (the open-files limit). */
  notes: string[];
  /** What is known of each server's limits, for the pre-flight doctor (absent: nothing); `strictLimits` refuses a plan over one. */
  limits?: ServerLimits;
  strictLimits?: boolean;
  log: (line: string) => void;
}

export interface WalletLoadDetail {
  part: 'run' | 'shard' | 'merged';
  workload: string;
  summaries: ServerLoadSummary[];
  setups: Map<string, unknown>;
  searches: FindMaxResult[];
  heldSearches: HeldSearchResult[];
  searched: { arrivals: boolean; held: boolean };
  /** ElectrumX's reply hold, for each server whose figures contain it (seen before the run; a merged test's, by shard 1). */
  replyHolds: ReplyHold[];
  merged?: { shards: number; startSkew: Record<string, { skewMs: number; shards: number }> };
  /** What the sampled servers spent over the run (--abuse with a process known). */
  costs?: string;
}

export async function walletLoadSession(run: WalletLoadRun): Promise<{ outcome: RunOutcome<WalletLoadDetail>; code: number }> {
  const c = run.plan.coordinated;
  // Before anything is claimed or connected: a plan over a known limit is said (or refused) first.
  const limitWarnings = preflight(run.servers, walletLoadDemands(run), run.limits ?? new Map(), run.strictLimits ?? false, run.log);
  const writesDb = c === undefined || c.shard.index === 1;
  const meet = c && { address: c.coordinator, shard: c.shard, readyTimeoutMs: c.readyTimeoutMs };
  return RunSession.run({ db: writesDb ? run.db : null, summaryExport: run.summaryExport, watch: run.plan.watch, title: run.title, ignoreUnanswered: run.ignoreUnanswered }, (session) =>
    asShard(meet, run.testOptions, (test, handOver) => measure(session, run, test, handOver, limitWarnings)),
  );
}

/** The most wallets this process connects at once, and what else a wallet asks of a server. */
function walletLoadDemands(run: WalletLoadRun): Demand[] {
  const { plan } = run;
  const shard = plan.coordinated?.shard;
  const held = plan.notifySearch ? shareOf(shard, plan.notifySearch.maxHold) : shareOf(shard, plan.hold);
  const arrivals = plan.arrivals && executorFor(plan.arrivals.model);
  // A closed model's users each sync on a connection of their own; how many an open model's
  // arrivals overlap depends on the server's pace, unknown before the run.
  const users = arrivals?.closed ? shareOf(shard, arrivals.maxVus(plan.arrivals!.model)) : 0;
  const from = [held ? `${plan.notifySearch ? '--max-hold' : '--hold'} ${held}` : '', users ? `${users} arriving users (--${arrivals!.choice?.flag})` : ''].filter(Boolean);
  return walletDemands({ workload: plan.workload, wallets: run.chosen, connections: held + users, connectionsFrom: from.join(' and ') });
}

async function measure(session: RunSession, run: WalletLoadRun, test: CoordinatedShard | undefined, handOver: () => void, limitWarnings: string[]): Promise<RunOutcome<WalletLoadDetail>> {
  const { plan } = run;
  const { workload, search, notifySearch, notify } = plan;
  const shard = plan.coordinated?.shard;
  // The syncs' own connections skip the courtesy calls as the wallets do: what the servers said here is what the run keeps of held replies.
  const said = await ensureReachable(run.servers, { timeoutMs: run.timeoutMs, maxLineBytes: run.maxLineBytes, tlsInsecure: run.tlsInsecure, ca: run.ca }, walletsNetwork(run.wallets));
  const setupsAsSeen = setupsWithReplies(run.setups, said);
  const holds = replyHolds(run.servers.map((t) => reachedIdentity(t, said)));
  if (test) await test.coordinator?.awaitShards(Math.max(0, test.readyBy - Date.now()), plan.coordinated!.readyTimeoutMs);
  // A shard holds its share of the wallets, and its share of the arrivals.
  const { hold, arrivals, durationMs } = shareOfPlan(plan, shard);
  // In a coordinated test shard 1 makes every block; the other shards learn of each from it.
  const maker = notify && !test?.shardLink ? await run.blockMaker() : undefined;
  const blocks = !notify ? undefined : test?.shardLink ? new ShardBlocks(test.shardLink) : test?.coordinator ? new CoordinatorBlocks(new LocalBlocks(maker!), test.coordinator) : new LocalBlocks(maker!);
  for (const line of run.notes) run.log(line);
  if (maker?.note) run.log(maker.note);
  // Pinned once every input is checked, before the first thread the run starts (they inherit it).
  const cpus = plan.cpus ? pinGenerator(plan.cpus, run.log) : undefined;
  const realtime = plan.realtime ? raiseGenerator(run.log) : undefined;

  // A shard's own part goes to a scratch database; shard 1 merges every shard's into --db.
  const results = session.openStore(test ? test.database : run.db);
  const store = new WalletStore(results);
  const tool = toolInfo();
  const config = {
    ...(limitWarnings.length ? { limitWarnings } : {}),
    workload: workload.name,
    wallets: run.wallets.path,
    walletMaxTxs: run.walletMaxTxs,
    hold,
    holdConcurrency: run.holdConcurrency,
    rate: run.rate,
    arrivals: arrivals?.model,
    durationMs,
    notify,
    search,
    notifySearch,
    blocks: run.blocks,
    payWallets: run.payWallets,
    mineVia: maker?.describe,
    timeoutMs: run.timeoutMs,
    cpus,
    realtime,
    abuse: plan.abuse && { spec: plan.abuse.spec.text, atMs: plan.abuse.atMs, forMs: plan.abuse.forMs },
    operatedByUser: plan.operated || undefined,
    shard: shard && formatShard(shard),
    test: shard && testIdentity(run.testOptions, run.servers, run.wallets.hash),
  };
  const { runId, serverIds } = session.record(
    () =>
      store.createRun(
        { kind: 'load', tool_version: tool.version, git_commit: tool.gitCommit, config, workload: workload.name, wallets_path: run.wallets.path, wallets_hash: run.wallets.hash, passes: null, warmup: null },
        run.servers.map((t) => ({ name: t.name, profile: t.profile, url: formatServerUrl(t, 'tcp'), software: null, protocol: null, setup: setupsAsSeen.get(t.name) })),
      ),
    shard ? formatShard(shard) : null,
  );
  const runner = new WalletLoad(
    {
      servers: run.servers,
      workload,
      wallets: run.chosen,
      connection: { tlsInsecure: run.tlsInsecure, ca: run.ca, timeoutMs: run.timeoutMs, maxLineBytes: run.maxLineBytes, keepaliveMs: 60_000 },
      hold,
      holdConcurrency: run.holdConcurrency,
      arrivals: arrivals?.model,
      durationMs,
      notify: blocks ? { source: blocks, blocks: run.blocks, payWallets: maker?.pay ? run.payWallets : 0, amountSat: 10_000, waitMs: plan.notifyWaitMs, paymentWaitMs: plan.notifyWaitMs } : undefined,
      rssOf: run.rssOf,
      abuse: plan.abuse,
      log: run.log,
      search,
      notifySearch,
      shard,
      rendezvous: test && ((meeting) => test.link.rendezvous(meeting)),
    },
    store,
    runId,
    serverIds,
  );
  // Every second of every segment is stored, and goes to the watchers with the wallets held and notified by then.
  const seconds = new LoadStore(results);
  type Second = { server: string; record: AnyIntervalRecord; step: number | null };
  runner.runner.on(
    'interval',
    session.seconds<Second>({
      store: ({ server, record, step }) => seconds.addInterval(runId, serverIds.get(server)!, record, step),
      record: (s) => s.record,
      live: (s) => runner.now(s.server),
      log: run.log,
    }),
  );
  // A coordinator's stop is the test's: the shards end too, and their parts are merged.
  session.onStop(() => {
    runner.stop();
    test?.coordinator?.stopAll();
  });
  let calledOff: string | undefined;
  if (test) {
    runner.runner.on('schedule-start', ({ server, epochMs }: { server: string; epochMs: number }) => test.link.started(server, epochMs));
    test.shardLink?.onStop(() => session.requestStop());
    const callOff = (reason: string) => {
      calledOff ??= reason;
      runner.stop();
    };
    test.shardLink?.onAbort(callOff);
    test.coordinator?.onFailure((reason) => {
      callOff(reason);
      test.coordinator!.abort(reason);
    });
  }
  handOver();
  const arrivalsText = search
    ? `, the highest arrival rate with sync ${search.slo.text.replace(/^sync\s+/, '')}`
    : arrivals
      ? `, wallets arriving (${arrivals.describe}) for ${arrivals.endsWhenDone ? 'up to ' : ''}${durationMs / 1000} s`
      : '';
  let done: WalletLoadDone = { summaries: [], searches: [], heldSearches: [] };
  let status: RunOutcome['status'] = 'completed';
  // --abuse: the servers' processes sampled beside the run, their readings kept to split by phase.
  const sampled = plan.abuse ? (run.resources ?? []) : [];
  const sampling = sampled.length ? prepareSampling(results.db, 'wallet-load', sampled, run.sampleEveryS ?? 1) : undefined;
  const readings: ResourceRow[] = [];
  let costs: string | undefined;
  await sampling?.ready;
  sampling?.start(runId, (rows) => readings.push(...rows.filter((r) => r.target !== 'host')));
  try {
    done = await runner.runServers(
      (t) =>
        run.log(
          `${t.name}: ${workload.name} workload${hold ? `, holding ${hold} wallets` : ''}${arrivalsText}${notify ? `, ${run.blocks} blocks${notifySearch ? ' a step' : ''}` : ''}${notifySearch ? `, then the most held wallets told of a block within ${notifySearch.slo.text}` : ''}`,
        ),
      (t, s) => run.log(stepLine(t, s, search!)),
    );
    status = session.statusOf({ failed: done.failure !== undefined, aborted: calledOff !== undefined, planDone: !runner.stopped });
    costs = await sampling?.stop(new Map());
    for (const s of done.summaries) addServerPhases(s, sampled, readings);
  } catch (err) {
    status = 'failed';
    throw err;
  } finally {
    if (sampling && costs === undefined) await sampling.stop(new Map()).catch(() => undefined);
    new AbuseStore(results).add(runId, serverIds, abuseRecords(done.summaries));
    store.finishRun(runId, status, { servers: done.summaries, setups: Object.fromEntries(setupsAsSeen), findMax: search ? done.searches : undefined, findMaxHeld: notifySearch ? done.heldSearches : undefined });
    session.closeStore();
  }
  // What the database or an output refused on the way fails the command, the run kept.
  if (done.failure) throw done.failure;
  if (calledOff) throw new UserError(`shard ${formatShard(shard!)}: the coordinated test was called off: ${calledOff}; nothing was merged`);
  const detail: WalletLoadDetail = {
    part: 'run',
    workload: workload.name,
    summaries: done.summaries,
    setups: run.setups,
    searches: done.searches,
    heldSearches: done.heldSearches,
    searched: { arrivals: search !== undefined, held: notifySearch !== undefined },
    replyHolds: holds,
    costs,
  };
  const outcome = (json: Record<string, unknown>, summaries: ServerLoadSummary[], d: Partial<WalletLoadDetail> = {}): RunOutcome<WalletLoadDetail> => {
    const answering = summaries.map((s) => answeringOf(s.server, unitsOf(s), { unit: 'wallet sync', timeoutMs: run.timeoutMs, stoppedAnswering: serverStoppedAnswering(s) }));
    return { kind: 'wallet-load', runId, db: run.db, status, answering, thresholds: [], regressed: [], json: { ...json, answering, replyHolds: holds }, detail: { ...detail, summaries, ...d } };
  };
  if (test) {
    // Held wallets' blocks are judged together: the others finish within a block's wait of shard 1.
    const resultsTimeoutMs = test.readyBy - Date.now() + run.timeoutMs + 5 * 60_000;
    if (test.shardLink) {
      await sendResults(test, shard!, resultsTimeoutMs);
      return { ...outcome({ shard: formatShard(shard!), status, servers: done.summaries }, done.summaries, { part: 'shard' }), db: null };
    }
    const created = fileAboutToBeCreated(run.db);
    let merged: Awaited<ReturnType<typeof mergeWalletTest>>;
    try {
      merged = await mergeWalletTest(test, shard!, run.db, resultsTimeoutMs);
    } catch (err) {
      created?.remove();
      throw err;
    }
    const setups = new Map(Object.entries(merged.setups));
    const json = { runId: merged.runId, status: merged.status, db: run.db, shards: shard!.count, startSkew: merged.startSkew, servers: merged.summaries, setups: merged.setups };
    return { ...outcome(json, merged.summaries, { part: 'merged', setups, merged: { shards: shard!.count, startSkew: merged.startSkew } }), runId: merged.runId, status: merged.status };
  }
  const json = { runId, status, db: run.db, servers: done.summaries, findMax: search ? done.searches : undefined, findMaxHeld: notifySearch ? done.heldSearches : undefined, setups: Object.fromEntries(setupsAsSeen) };
  return outcome(json, done.summaries);
}

/** A shard's share of the plan's hold and arrivals; how long wallets arrive (a limit for iterations, which end when done). */
function shareOfPlan(plan: WalletLoadPlan, shard: Shard | undefined) {
  const hold = shareOf(shard, plan.hold);
  const whole = plan.arrivals;
  if (!whole) return { hold, arrivals: undefined, durationMs: 0 };
  const executor = executorFor(whole.model);
  const model = shard ? executor.shareOf(whole.model, shard) : whole.model;
  return { hold, arrivals: { model, describe: executor.describe(model), endsWhenDone: !!executor.endsWhenDone }, durationMs: executor.lengthMs(model, whole.durationMs) };
}

/** How a server's wallet syncs ended, held and arriving, for whether it answered them. */
function unitsOf(s: ServerLoadSummary): Record<string, number> {
  const units: Record<string, number> = { ok: s.held };
  const add = (k: string, n: number) => {
    if (n > 0) units[k] = (units[k] ?? 0) + n;
  };
  // Runs stored before the hold's failures were kept by category: their failures' category is not known.
  if (s.holdFailures) for (const [k, n] of Object.entries(s.holdFailures)) add(k, n);
  else add('hold-failed', s.holdFailed);
  // A search's arrivals are every step's: a server that answered two steps and none of the last answered.
  if (s.searchArrivals) {
    for (const [k, n] of Object.entries(s.searchArrivals)) add(k, n);
    return units;
  }
  add('ok', s.arrivals?.synced ?? 0);
  for (const [k, n] of Object.entries(s.arrivals?.failures ?? {})) add(k, n);
  add('not-sent', s.arrivals?.notStarted ?? 0);
  return units;
}
