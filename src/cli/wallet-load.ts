/**
 * `load --workload NAME`: the wallet-sync iteration on the engine's executors: wallets held
 * connected and subscribed (the hold executor), wallets arriving as any load executor paces them
 * (--rate, --stages, --vus, --vus-stages, --iterations, --iterations-per-vu), and the block
 * notifications held wallets receive (--notify). Options are checked in one step before anything
 * connects.
 */
import fs from 'node:fs';
import { fileAboutToBeCreated } from '../core/created-file';
import { claimInput } from '../core/output-path';
import { toolInfo } from '../core/tool-info';
import { formatServerUrl } from '../core/server-address';
import { NodeRpc } from '../node/rpc';
import { ResultsStore } from '../store/results';
import { WalletStore } from '../store/wallets';
import { UserError } from '../core/user-error';
import { summaryText } from '../wallet/load-summary';
import { CoordinatorBlocks, LocalBlocks, ShardBlocks, type BlockMaker } from '../wallet/blocks';
import { asShard, mergeWalletTest, sendResults, type CoordinatedShard } from './coordinated';
import { WalletLoad, type ServerLoadSummary, type WalletLoadDone, type WalletLoadOptions, type WalletUnit } from '../wallet/load';
import { readWallets } from '../dataset/wallet-file';
import { workloadNamed, type Workload } from '../wallet/workloads';
import { arrivalModel, findMaxOptions, pinGenerator, type FindMaxArgs } from './load-plan';
import { LoadStore } from '../store/load-results';
import { formatShard, parseShard, shareOf, type Shard } from '../core/shard';
import { parseCoordinator, type CoordinatorAddress } from '../engine/coordinator';
import type { AnyIntervalRecord } from '../core/load-types';
import { parseSlo, stepLine, type FindMaxOptions } from '../engine/find-max';
import { hold as holdExecutor } from '../engine/executors/hold';
import { countOrZeroProblem, countProblem } from '../engine/executors/executor';
import { CHOOSABLE, executorFor, flagsGiven, type LoadModel } from '../engine/executors/registry';
import { electrumTargets, ensureReachable, readCa, resolveTargets, type TargetArgs } from './server-targets';
import { onStopSignal } from './signals';
import { labServersAmong, labSetups } from './lab-targets';
import { collecting, cpuOption, durationOption, timeoutSeconds } from './validate';
import { walletsNetwork } from '../dataset/expected-network';
import { testIdentity } from '../runs/test-identity';
import { openWatchers, watchPlan, type WatchArgs, type WatchPlan } from './watch-options';

export interface WalletLoadArgs extends TargetArgs, FindMaxArgs, WatchArgs {
  workload: string;
  wallets?: string;
  cpu?: string;
  hold?: number;
  'hold-concurrency': number;
  notify: boolean;
  blocks: number;
  'pay-wallets': number;
  'mine-via'?: string;
  'rpc-cookie'?: string;
  'notify-wait': string;
  'natural-wait': string;
  'wallet-max-txs'?: number;
  'slo-notify'?: string;
  'max-hold': number;
  shard?: string;
  coordinator?: string;
  'ready-timeout': string;
  timeout: number;
  'max-line-bytes': number;
  'tls-insecure': boolean;
  ca?: string;
  db: string;
  json: boolean;
}

/** Options of `load` that belong to request-level load only. */
const REQUEST_ONLY = ['dataset', 'mix', 'connections', 'pipeline', 'threshold', 'samples', 'source-addresses', 'interleave', 'baseline', 'fail-on-regression'];
const WALLET_ONLY = ['wallets', 'hold', 'hold-concurrency', 'notify', 'blocks', 'pay-wallets', 'mine-via', 'rpc-cookie', 'notify-wait', 'natural-wait', 'wallet-max-txs', 'slo-notify', 'max-hold'];

export function refuseWalletOptions(argv: string[]): void {
  const given = WALLET_ONLY.filter((f) => argv.some((t) => t === `--${f}` || t.startsWith(`--${f}=`)));
  if (given.length) throw new UserError(`--${given.join(', --')} apply to wallet workloads: give --workload too (e.g. --workload electrum)`);
}

/** The soft limit on open files (what applies) and the hard one, from /proc (Linux). */
export function fileLimit(): { soft: number; hard: number } | null {
  try {
    const m = /Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    if (!m) return null;
    const n = (s: string) => (s === 'unlimited' ? Infinity : Number(s));
    return { soft: n(m[1]), hard: n(m[2]) };
  } catch {
    return null;
  }
}

/** What `load --workload` runs, every option checked in one step (all problems at once, exit 2) before any I/O. */
interface WalletLoadPlan {
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
  watch: WatchPlan;
  /** --shard I/N --coordinator HOST:PORT: this process holds and notifies its share of one test's wallets. */
  coordinated?: { shard: Shard; coordinator: CoordinatorAddress; readyTimeoutMs: number };
}

export function walletLoadPlan(a: WalletLoadArgs, argv: string[]): WalletLoadPlan {
  const problems: string[] = [];
  const take = collecting(problems);
  const workload = take(() => workloadNamed(a.workload));
  const stray = REQUEST_ONLY.filter((f) => argv.some((t) => t === `--${f}` || t.startsWith(`--${f}=`)));
  if (stray.length) problems.push(`--workload drives whole wallets: --${stray.join(', --')} apply to request-level load only`);
  const hold = a.hold ?? 0;
  const holdProblems = countOrZeroProblem('--hold', hold);
  problems.push(...holdProblems);
  const noted = problems.length;
  const notifySlo = a['slo-notify'] === undefined ? undefined : take(() => parseSlo(a['slo-notify']!, [], '--slo-notify'));
  // --find-max searches the arrival rate under --slo, the held count under --slo-notify, or both.
  const arrivalSearch = !a['find-max'] || a.slo !== undefined || notifySlo === undefined;
  const search = arrivalSearch ? findMaxOptions(a, problems, take, [SYNC_UNIT]) : undefined;
  if (a['find-max'] && !arrivalSearch) {
    const given = flagsGiven(a);
    if (given.length) problems.push(`--find-max chooses the rates itself; drop --${given.join(', --')}`);
  }
  const notifySearch = notifySlo ? { slo: notifySlo, factor: a['step-factor'], maxHold: a['max-hold'] } : undefined;
  if (a['slo-notify'] !== undefined && !a['find-max']) problems.push('--slo-notify applies to --find-max only');
  if (notifySearch) {
    if (hold === 0) problems.push('--slo-notify steps up from the wallets held: give --hold N (the first step)');
    if (!(Number.isInteger(a['max-hold']) && a['max-hold'] >= hold)) problems.push(`--max-hold must be a whole number >= --hold (${hold}), got ${a['max-hold']}`);
  }
  // With --find-max the search sets the arrival rate and its steps' length itself.
  const arrivals = a['find-max'] ? undefined : arrivalModel(a, problems);
  // Only when no arrival option was given at all: a wrong one has its own problem noted.
  if (!arrivals && !a['find-max'] && hold === 0 && problems.length === noted) problems.push(`--workload needs a way for wallets to arrive (${CHOOSABLE.map((e) => e.choice.usage).join(', ')}) and/or --hold N (wallets kept connected)`);
  if (a.duration !== undefined && !arrivals && !a['find-max']) problems.push('--duration applies to arriving wallets (--rate, --vus, ...): how long they keep arriving');
  if (hold > 0 && !holdProblems.length) problems.push(...holdExecutor.validate({ kind: 'hold', sessions: hold, concurrency: a['hold-concurrency'] }));
  const notify = a.notify || notifySearch !== undefined;
  if (workload && !workload.subscribes) {
    // A wallet that polls keeps no subscription open: there is nothing to hold or to notify.
    if (hold > 0) problems.push(`--hold: the ${workload.name} workload subscribes to nothing (a ${workload.name} wallet polls); use electrum or sparrow`);
    if (notify) problems.push(`--${a.notify ? 'notify' : 'slo-notify'}: the ${workload.name} workload subscribes to nothing (a ${workload.name} wallet polls); use electrum or sparrow`);
  }
  if (a.notify && hold === 0) problems.push('--notify needs held wallets to notify: give --hold N');
  problems.push(...countProblem('--blocks', a.blocks), ...countOrZeroProblem('--pay-wallets', a['pay-wallets']));
  const notifyWaitMs = take(() => durationOption('notify-wait', a['notify-wait']));
  const naturalWaitMs = take(() => durationOption('natural-wait', a['natural-wait']));
  const cpus = cpuOption('--cpu', a.cpu, problems);
  const watch = watchPlan(a, problems);
  const coordinated = coordinatedPlan(a, problems, take);
  // Every shard runs every segment of a server's run, the hold's too: each holds at least one wallet.
  if (coordinated && hold > 0 && hold < coordinated.shard.count) problems.push(`--hold ${hold}: a test of ${coordinated.shard.count} shards holds at least one wallet on each; hold ${coordinated.shard.count} or more`);
  if (problems.length) throw new UserError(problems.join('; '));
  return { workload: workload!, hold, arrivals, search, notifySearch, notify, coordinated, notifyWaitMs: notifyWaitMs!, naturalWaitMs: naturalWaitMs!, cpus, watch };
}

export async function walletLoad(a: WalletLoadArgs, argv: string[]): Promise<number> {
  const plan = walletLoadPlan(a, argv);
  const c = plan.coordinated;
  const meet = c && { address: c.coordinator, shard: c.shard, readyTimeoutMs: c.readyTimeoutMs };
  return asShard(meet, a as unknown as Record<string, unknown>, (test, handOver) => runWalletLoad(a, plan, test, handOver));
}

async function runWalletLoad(a: WalletLoadArgs, plan: WalletLoadPlan, test: CoordinatedShard | undefined, handOver: () => void): Promise<number> {
  const { workload, hold: wholeHold, arrivals: wholeArrivals, search, notifySearch, notify, notifyWaitMs, naturalWaitMs, cpus: cpuList, watch, coordinated } = plan;
  const shard = coordinated?.shard;
  // A shard holds its share of the wallets, and its share of the arrivals.
  const hold = shareOf(shard, wholeHold);
  const arrivals = wholeArrivals && shard ? { ...wholeArrivals, model: executorFor(wholeArrivals.model).shareOf(wholeArrivals.model, shard) } : wholeArrivals;
  // How long wallets arrive: the stages' sum for a ramp, --duration (or its default) otherwise, a
  // limit for iterations, which end when done.
  const executor = arrivals ? executorFor(arrivals.model) : undefined;
  const durationMs = arrivals ? executor!.lengthMs(arrivals.model, arrivals.durationMs) : 0;
  const arrivalsText = search
    ? `, the highest arrival rate with sync ${search.slo.text.replace(/^sync\s+/, '')}`
    : arrivals
      ? `, wallets arriving (${executor!.describe(arrivals.model)}) for ${executor?.endsWhenDone ? 'up to ' : ''}${durationMs / 1000} s`
      : '';
  const resolved = await resolveTargets(a);
  const lab = await labServersAmong(resolved.targets);
  const onLab = lab.servers;
  const allOnLab = onLab.size === resolved.targets.length;
  const walletsFile = a.wallets ?? (allOnLab ? lab.walletsPath : missingWallets());
  claimInput(walletsFile, '--wallets');
  const wallets = readWallets(walletsFile);
  const maxTxs = a['wallet-max-txs'];
  const chosen = maxTxs === undefined ? wallets.wallets : wallets.wallets.filter((w) => w.expected.txCount <= maxTxs);
  if (chosen.length === 0) throw new UserError(`--wallet-max-txs ${maxTxs}: no wallet of ${wallets.path} has so few transactions`);
  const limit = fileLimit();
  // Each held wallet is one socket; arrivals and the process itself need a margin beside them.
  const mostHeld = notifySearch ? notifySearch.maxHold : hold;
  const needed = mostHeld + 256;
  if (limit && needed > limit.soft) {
    const option = notifySearch ? `--max-hold ${mostHeld}` : `--hold ${hold}`;
    throw new UserError(`${option} needs about ${needed} open files, but the limit that applies is ${limit.soft} (hard ${limit.hard}); raise it (ulimit -n) or hold fewer`);
  }
  const targets = electrumTargets(resolved.targets, a.lab);
  const caFile = a.ca ?? resolved.labCaFile;
  const ca = caFile ? readCa(caFile) : undefined;
  const timeoutMs = timeoutSeconds('--timeout', a.timeout);
  await ensureReachable(targets, { timeoutMs, maxLineBytes: a['max-line-bytes'], tlsInsecure: a['tls-insecure'], ca }, walletsNetwork(wallets));
  if (test) await test.coordinator?.awaitShards(Math.max(0, test.readyBy - Date.now()), plan.coordinated!.readyTimeoutMs);
  // In a coordinated test shard 1 makes every block; the other shards learn of each from it.
  const maker = notify && !test?.shardLink ? await blockMaker(a, allOnLab, naturalWaitMs) : undefined;
  const blocks = !notify ? undefined : test?.shardLink ? new ShardBlocks(test.shardLink) : test?.coordinator ? new CoordinatorBlocks(new LocalBlocks(maker!), test.coordinator) : new LocalBlocks(maker!);
  const setups = await labSetups(onLab);
  const log = (line: string) => process.stderr.write(`[load] ${line}\n`);
  if (limit) log(`open files: limit ${limit.soft} (hard ${limit.hard}); ${hold} held wallets need about ${needed}`);
  if (maker?.note) log(maker.note);
  // Pinned once every input is checked, before the first thread the run starts (they inherit it).
  const cpus = cpuList ? pinGenerator(cpuList) : undefined;
  // Claimed and listening before the database is touched.
  const outputs = await openWatchers(watch, `load, ${workload.name} workload${hold ? `, ${hold} held` : ''}, on ${targets.map((t) => t.name).join(', ')}`);
  try {
    // A shard's own part goes to a scratch database; shard 1 merges every shard's into --db.
    const dbFile = test ? test.database : a.db;
    const created = fileAboutToBeCreated(dbFile);
    const results = ResultsStore.open(dbFile);
    const store = new WalletStore(results);
    const tool = toolInfo();
    const config = { workload: workload.name, wallets: wallets.path, walletMaxTxs: maxTxs, hold, holdConcurrency: a['hold-concurrency'], rate: a.rate, arrivals: arrivals?.model, durationMs, notify, search, notifySearch, blocks: a.blocks, payWallets: a['pay-wallets'], mineVia: maker?.describe, timeoutMs, cpus, shard: shard && formatShard(shard), test: shard && testIdentity(a, targets, wallets.hash) };
    let run: { runId: number; serverIds: Map<string, number> };
    try {
      run = store.createRun(
        { kind: 'load', tool_version: tool.version, git_commit: tool.gitCommit, config, workload: workload.name, wallets_path: wallets.path, wallets_hash: wallets.hash, passes: null, warmup: null },
        targets.map((t) => ({ name: t.name, profile: t.profile, url: formatServerUrl(t, 'tcp'), software: null, protocol: null, setup: setups.get(t.name) })),
      );
    } catch (err) {
      results.close();
      created?.remove();
      throw err;
    }
    const { runId, serverIds } = run;
    outputs.start({ run: runId, shard: shard ? formatShard(shard) : null });
    const runner = new WalletLoad(
      {
        servers: targets,
        workload,
        wallets: chosen,
        connection: { tlsInsecure: a['tls-insecure'], ca, timeoutMs, maxLineBytes: a['max-line-bytes'], keepaliveMs: 60_000 },
        hold,
        holdConcurrency: a['hold-concurrency'],
        arrivals: arrivals?.model,
        durationMs,
        notify: blocks ? { source: blocks, blocks: a.blocks, payWallets: maker?.pay ? a['pay-wallets'] : 0, amountSat: 10_000, waitMs: notifyWaitMs, paymentWaitMs: notifyWaitMs } : undefined,
        rssOf: onLab.size ? await labRss(onLab) : undefined,
        log,
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
    runner.runner.on('interval', ({ server, record, step }: { server: string; record: AnyIntervalRecord; step: number | null }) => {
      seconds.addInterval(runId, serverIds.get(server)!, record, step);
      outputs.interval(record, runner.now(server));
    });
    // A coordinator's stop is the test's: the shards end too, and their parts are merged.
    onStopSignal(() => {
      runner.stop();
      test?.coordinator?.stopAll();
    });
    let calledOff: string | undefined;
    if (test) {
      runner.runner.on('schedule-start', ({ server, epochMs }: { server: string; epochMs: number }) => test.link.started(server, epochMs));
      test.shardLink?.onStop(() => runner.stop());
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
    let done: WalletLoadDone = { summaries: [], searches: [], heldSearches: [] };
    let status: 'completed' | 'interrupted' | 'failed' = 'completed';
    try {
      done = await runner.runServers(
        (t) => log(`${t.name}: ${workload.name} workload${hold ? `, holding ${hold} wallets` : ''}${arrivalsText}${notify ? `, ${a.blocks} blocks${notifySearch ? ' a step' : ''}` : ''}${notifySearch ? `, then the most held wallets told of a block within ${notifySearch.slo.text}` : ''}`),
        (t, s) => log(stepLine(t, s, search!)),
      );
      if (done.failure) status = 'failed';
      else if (runner.stopped) status = 'interrupted';
    } finally {
      store.finishRun(runId, status, { servers: done.summaries, setups: Object.fromEntries(setups), findMax: search ? done.searches : undefined, findMaxHeld: notifySearch ? done.heldSearches : undefined });
      results.close();
    }
    // What the database or an output refused on the way fails the command, the run kept.
    if (done.failure) throw done.failure;
    if (calledOff) throw new UserError(`shard ${formatShard(shard!)}: the coordinated test was called off: ${calledOff}; nothing was merged`);
    if (test) {
      const merged = await finishCoordinatedWallets(a, test, shard!, { runId, status, summaries: done.summaries, setups }, timeoutMs);
      await outputs.end(merged.json);
      return merged.code;
    }
    const { summaries, searches, heldSearches } = done;
    const json = { runId, status, db: a.db, servers: summaries, findMax: search ? searches : undefined, findMaxHeld: notifySearch ? heldSearches : undefined, setups: Object.fromEntries(setups) };
    await outputs.end(json);
    const statements = [...(search ? searches : []), ...(notifySearch ? heldSearches : [])].map((f) => f.statement);
    const lastSteps = [search && "arriving wallets below: each server's last step", notifySearch && "notifications below: each server's last held step"].filter(Boolean).join('; ');
    if (a.json) process.stdout.write(JSON.stringify(json, null, 2) + '\n');
    else process.stdout.write((statements.length ? `${statements.join('\n')}\n\n(${lastSteps})\n` : '') + summaryText(runId, workload.name, summaries, setups, a.db) + '\n');
    return status === 'interrupted' ? 130 : 0;
  } finally {
    await outputs.close();
  }
}

/**
 * A wallet load's shards run as one coordinated test only: shard 1 makes the blocks that every
 * shard's held wallets are judged on, so the shards must meet. Its steps are judged on the whole
 * test, which no search step can be yet (each would need every shard's figures first).
 */
function coordinatedPlan(a: WalletLoadArgs, problems: string[], take: ReturnType<typeof collecting>): WalletLoadPlan['coordinated'] {
  if (a.coordinator === undefined) {
    if (a.shard !== undefined) problems.push('--shard: a wallet load runs its shards as one coordinated test: give --coordinator HOST:PORT too (shard 1 coordinates)');
    return undefined;
  }
  if (a.shard === undefined) problems.push('--coordinator: give --shard I/N too (shard 1 coordinates, the others register with it)');
  if (a['find-max']) problems.push('--coordinator: --find-max is not coordinated across shards (each step would need the whole test judged); run it on one machine');
  if (a.dashboard !== undefined || a['dashboard-export'] !== undefined) problems.push('--coordinator: --dashboard would show one shard, not the test; follow a coordinated test with --out prometheus-rw=URL (every shard labelled), or its merged summary');
  const shard = a.shard === undefined ? undefined : take(() => parseShard(a.shard!));
  const coordinator = take(() => parseCoordinator(a.coordinator!));
  const readyTimeoutMs = take(() => durationOption('ready-timeout', a['ready-timeout']));
  return shard && coordinator && readyTimeoutMs !== undefined ? { shard, coordinator, readyTimeoutMs } : undefined;
}

/**
 * After a shard's own run: shards 2..N send their databases to shard 1 and print their own part;
 * shard 1 merges every shard's into --db (src/runs/merge.ts) and prints the whole test's summary.
 */
async function finishCoordinatedWallets(
  a: WalletLoadArgs,
  test: CoordinatedShard,
  shard: Shard,
  own: { runId: number; status: string; summaries: ServerLoadSummary[]; setups: Map<string, unknown> },
  timeoutMs: number,
): Promise<{ code: number; json: Record<string, unknown> }> {
  // Held wallets' blocks are judged together: the others finish within a block's wait of shard 1.
  const resultsTimeoutMs = test.readyBy - Date.now() + timeoutMs + 5 * 60_000;
  if (test.shardLink) {
    await sendResults(test, shard, resultsTimeoutMs);
    const json = { shard: formatShard(shard), status: own.status, servers: own.summaries };
    const text = `shard ${formatShard(shard)}'s own part of the test (the coordinator, shard 1, prints the whole):\n` + summaryText(own.runId, a.workload, own.summaries, own.setups, null);
    process.stdout.write((a.json ? JSON.stringify(json, null, 2) : text) + '\n');
    return { code: own.status === 'interrupted' ? 130 : 0, json };
  }
  const created = fileAboutToBeCreated(a.db);
  let merged: Awaited<ReturnType<typeof mergeWalletTest>>;
  try {
    merged = await mergeWalletTest(test, shard, a.db, resultsTimeoutMs);
  } catch (err) {
    created?.remove();
    throw err;
  }
  const json = { runId: merged.runId, status: merged.status, db: a.db, shards: shard.count, startSkew: merged.startSkew, servers: merged.summaries, setups: merged.setups };
  const skew = Object.entries(merged.startSkew).map(([meeting, s]) => `start skew (${meeting}): ${s.skewMs.toFixed(3)} ms between the first and the last of ${s.shards} shards`);
  const text = `coordinated wallet load of ${shard.count} shards, merged into ${a.db}\n` + summaryText(merged.runId, a.workload, merged.summaries, new Map(Object.entries(merged.setups)), a.db) + (skew.length ? `\n${skew.join('\n')}` : '');
  process.stdout.write((a.json ? JSON.stringify(json, null, 2) : text) + '\n');
  return { code: merged.status === 'interrupted' ? 130 : 0, json };
}

/** What --slo may name in a wallet load: the time to a synced wallet. */
const SYNC_UNIT: WalletUnit = 'sync';

function missingWallets(): never {
  throw new UserError('--workload needs --wallets FILE (or --lab, whose wallets file `lab up` writes)');
}


async function labRss(onLab: Map<string, string>): Promise<(server: string) => Promise<number | null>> {
  const { labResourceTargets } = await import('./resource-targets');
  const { readProcessTree } = await import('../resources/proc');
  const targets = await labResourceTargets();
  return async (server) => {
    const t = targets.find((x) => x.name === onLab.get(server));
    if (!t?.pidFile) return null;
    const pid = Number(fs.readFileSync(t.pidFile, 'utf8').trim());
    return (await readProcessTree(pid))?.rssBytes ?? null;
  };
}

/** A regtest node's RPC given by --mine-via (mining only); the lab's miner; or natural blocks. */
async function blockMaker(a: WalletLoadArgs, onLab: boolean, waitMs: number): Promise<BlockMaker & { describe: string; note?: string }> {
  if (!a['mine-via'] && !onLab) {
    return {
      describe: 'natural blocks',
      naturalWaitMs: waitMs,
      note: `no blocks on request here (not the lab, no --mine-via): waiting up to ${waitMs / 1000} s for each of ${a.blocks} natural blocks; each is timed from the first held connection that heard it, since when it was found is unknown`,
    };
  }
  if (a['mine-via']) {
    const url = a['mine-via']!;
    const rpc = new NodeRpc({ url, cookieFile: a['rpc-cookie'], timeoutMs: 30_000 });
    const chain = await rpc.call<{ chain: string }>('getblockchaininfo').catch((err: Error) => {
      throw new UserError(`--mine-via ${rpc.describe()}: ${err.message}`);
    });
    if (chain.chain !== 'regtest') throw new UserError(`--mine-via ${rpc.describe()} is on ${chain.chain}: blocks can be mined on request only on regtest`);
    const { miningAddress } = await import('../lab/generator/keys');
    const address = miningAddress('electrum-bench-mine-via');
    return {
      describe: rpc.describe(),
      note: `mining through ${rpc.describe()}: blocks only (no payments: we hold none of its keys), so only headers notifications are measured`,
      mineOne: async () => {
        const askedNs = process.hrtime.bigint();
        const [hash] = await rpc.call<string[]>('generatetoaddress', [1, address]);
        const returnedNs = process.hrtime.bigint();
        const { height } = await rpc.call<{ height: number }>('getblockheader', [hash, true]);
        return { height, askedNs, returnedNs };
      },
    };
  }
  const { labMiner } = await import('../lab/lab');
  const { miner, recordChange } = await labMiner();
  return { describe: 'lab', pay: (addresses, sats) => miner.pay(addresses, sats), mineOne: () => miner.mineOne(), recordChange };
}
