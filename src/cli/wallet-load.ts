/**
 * `load --workload NAME`: the wallet-sync iteration on the engine's executors: wallets held
 * connected and subscribed (the hold executor), wallets arriving as any load executor paces them
 * (--rate, --stages, --vus, --vus-stages, --iterations, --iterations-per-vu), and the block
 * notifications held wallets receive (--notify). Options are checked in one step before anything
 * connects.
 */
import fs from 'node:fs';
import { claimInput } from '../core/output-path';
import { NodeRpc } from '../node/rpc';
import { UserError } from '../core/user-error';
import { readWallets } from '../dataset/wallet-file';
import { workloadNamed } from '../wallet/workloads';
import type { WalletUnit } from '../wallet/load';
import { arrivalModel, findMaxOptions, type FindMaxArgs } from './load-plan';
import { parseShard, shareOf } from '../core/shard';
import { parseCoordinator } from '../engine/coordinator';
import { parseSlo } from '../engine/find-max';
import { hold as holdExecutor } from '../engine/executors/hold';
import { countOrZeroProblem, countProblem } from '../engine/executors/executor';
import { CHOOSABLE, flagsGiven } from '../engine/executors/registry';
import { electrumTargets, resolveTargets, webSocketAsked, type TargetArgs } from './server-targets';
import { readCa } from '../core/ca-file';
import { labServersAmong, labSetups } from './lab-targets';
import { collecting, cpuOption, realtimeProblems, durationOption, optionsOnCommandLine, timeoutSeconds } from './validate';
import { watchPlan, type WatchArgs } from './watch-options';
import { walletLoadSession, type DescribedBlockMaker, type WalletLoadPlan, type WalletLoadRun } from '../runs/kinds/wallet-load';
import { printWalletLoad } from './print-wallet';
import { limitsOf } from './server-limits';
import { parseAbuseSpec } from '../engine/abuse/spec';
import { parseDurationMs } from '../core/duration';
import { refuseUnlessOperated } from '../core/target-safety';
import { ownServerTargets, SERVER_SAMPLING_FLAGS, type ResourceArgs } from './resource-targets';

export interface WalletLoadArgs extends TargetArgs, FindMaxArgs, WatchArgs, ResourceArgs {
  resources: boolean;
  'sample-every': number;
  workload: string;
  wallets?: string;
  cpu?: string;
  realtime?: boolean;
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
  abuse?: string;
  'abuse-at': string;
  'abuse-for': string;
  'i-operate-this-server': boolean;
  shard?: string;
  coordinator?: string;
  'ready-timeout': string;
  timeout: number;
  'max-line-bytes': number;
  'tls-insecure': boolean;
  ca?: string;
  db: string;
  json: boolean;
  'summary-export'?: string;
  'ignore-unanswered'?: boolean;
  'strict-limits'?: boolean;
  'limits-db'?: string;
}

/** Options of `load` that belong to request-level load only. */
const REQUEST_ONLY = ['dataset', 'mix', 'connections', 'pipeline', 'threshold', 'samples', 'source-addresses', 'interleave', 'baseline', 'fail-on-regression'];
const WALLET_ONLY = ['wallets', 'hold', 'hold-concurrency', 'notify', 'blocks', 'pay-wallets', 'mine-via', 'rpc-cookie', 'notify-wait', 'natural-wait', 'wallet-max-txs', 'slo-notify', 'max-hold', 'abuse', 'abuse-at', 'abuse-for', 'i-operate-this-server'];

export function refuseWalletOptions(argv: string[]): void {
  const given = optionsOnCommandLine(WALLET_ONLY, argv);
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

/** What holds sockets through a wallet load (`--hold N`, `--abuse …`) and how many at most: each is an open file of ours. */
export interface SocketHolder {
  option: string;
  sockets: number;
}

/** Arriving wallets, the database and the process itself need a margin beside what is held. */
const OPEN_FILES_MARGIN = 256;

export function openFilesNeeded(holders: SocketHolder[]): number {
  return holders.reduce((n, h) => n + h.sockets, OPEN_FILES_MARGIN);
}

/** Past the limit, sockets fail with EMFILE mid-run (an abuse's as refusals the server never made): refused before, naming what needs them. */
export function openFilesProblem(holders: SocketHolder[], limit: { soft: number; hard: number } | null): string | undefined {
  const needed = openFilesNeeded(holders);
  if (!limit || needed <= limit.soft) return undefined;
  const named = holders.filter((h) => h.sockets > 0).map((h) => h.option);
  return `${named.join(' with ')} ${named.length > 1 ? 'need' : 'needs'} about ${needed} open files, but the limit that applies is ${limit.soft} (hard ${limit.hard}); raise it (ulimit -n) or ask for fewer`;
}

export function walletLoadPlan(a: WalletLoadArgs, argv: string[]): WalletLoadPlan {
  const problems: string[] = [];
  const take = collecting(problems);
  const workload = take(() => workloadNamed(a.workload));
  const stray = optionsOnCommandLine(REQUEST_ONLY, argv);
  if (stray.length) problems.push(`--workload drives whole wallets: --${stray.join(', --')} apply to request-level load only`);
  // A wallet load samples the abused server's process (src/runs/abuse-phases.ts), nothing otherwise.
  const sampling = optionsOnCommandLine(SERVER_SAMPLING_FLAGS, argv);
  if (sampling.length && a.abuse === undefined) problems.push(`--workload samples a server's resources beside --abuse only: --${sampling.join(', --')} would be ignored`);
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
  problems.push(...realtimeProblems(a.realtime, a['find-max']));
  const watch = watchPlan(a, problems);
  const coordinated = coordinatedPlan(a, problems, take);
  // Every shard runs every segment of a server's run, the hold's too: each holds at least one wallet.
  if (coordinated && hold > 0 && hold < coordinated.shard.count) problems.push(`--hold ${hold}: a test of ${coordinated.shard.count} shards holds at least one wallet on each; hold ${coordinated.shard.count} or more`);
  const abuse = abusePlan(a, arrivals, problems, take);
  if (abuse && coordinated) problems.push('--abuse runs from one process: drop --shard');
  if (problems.length) throw new UserError(problems.join('; '));
  return { workload: workload!, hold, arrivals, search, notifySearch, notify, coordinated, abuse, operated: a['i-operate-this-server'], notifyWaitMs: notifyWaitMs!, naturalWaitMs: naturalWaitMs!, cpus, realtime: a.realtime || undefined, watch };
}

/** --abuse with --abuse-at and --abuse-for: within the arrivals, which it needs (the phases are theirs). */
function abusePlan(a: WalletLoadArgs, arrivals: WalletLoadPlan['arrivals'], problems: string[], take: ReturnType<typeof collecting>): WalletLoadPlan['abuse'] {
  if (a.abuse === undefined) return undefined;
  const spec = take(() => parseAbuseSpec(a.abuse!));
  const atMs = take(() => parseDurationMs(a['abuse-at'], '--abuse-at'));
  const forMs = take(() => parseDurationMs(a['abuse-for'], '--abuse-for'));
  const webSocket = webSocketAsked(a);
  // The profiles write raw bytes on TCP or TLS (wire.ts): at a WebSocket listener they would abuse nothing the server parses.
  if (webSocket) problems.push(`--abuse ${a.abuse}: the profiles write raw TCP or TLS, not WebSocket frames; drop ${webSocket} and give the server's TCP or TLS port`);
  if (!arrivals) problems.push('--abuse runs beside arriving wallets (--rate, --vus, ...; not --find-max): their before, during and after are its collateral');
  else if (atMs !== undefined && forMs !== undefined && (atMs <= 0 || forMs <= 0 || atMs + forMs >= arrivals.durationMs))
    problems.push(`--abuse-at ${a['abuse-at']} and --abuse-for ${a['abuse-for']} must leave a before and an after inside --duration (${arrivals.durationMs / 1000} s)`);
  return spec && atMs !== undefined && forMs !== undefined ? { spec, atMs, forMs } : undefined;
}

export async function walletLoad(a: WalletLoadArgs, argv: string[]): Promise<number> {
  const plan = walletLoadPlan(a, argv);
  const { outcome, code } = await walletLoadSession(await walletLoadRunOf(a, plan));
  process.stdout.write(printWalletLoad(outcome, { json: a.json }) + '\n');
  return code;
}

/** The plan with its servers, wallets and CA resolved and the lab's parts found: what the session runs. Nothing is written here. */
async function walletLoadRunOf(a: WalletLoadArgs, plan: WalletLoadPlan): Promise<WalletLoadRun> {
  const { workload, coordinated } = plan;
  const hold = shareOf(coordinated?.shard, plan.hold);
  const resolved = await resolveTargets(a);
  const lab = await labServersAmong(resolved.targets);
  const onLab = lab.servers;
  const allOnLab = onLab.size === resolved.targets.length;
  const walletsFile = a.wallets ?? (allOnLab ? lab.walletsPath : missingWallets());
  claimInput(walletsFile, '--wallets');
  const wallets = readWallets(walletsFile, '--wallets', workload.name);
  const maxTxs = a['wallet-max-txs'];
  const chosen = maxTxs === undefined ? wallets.wallets : wallets.wallets.filter((w) => w.expected.txCount <= maxTxs);
  if (chosen.length === 0) throw new UserError(`--wallet-max-txs ${maxTxs}: no wallet of ${wallets.path} has so few transactions`);
  const limit = fileLimit();
  const holders = socketHolders(plan, hold);
  const needed = openFilesNeeded(holders);
  const tooMany = openFilesProblem(holders, limit);
  if (tooMany) throw new UserError(tooMany);
  const targets = electrumTargets(resolved.targets, a.lab);
  if (plan.abuse) refuseUnlessOperated(`--abuse ${plan.abuse.spec.text}`, targets.map((t) => ({ name: t.name, host: t.host, lab: onLab.has(t.name) })), plan.operated === true);
  const caFile = a.ca ?? resolved.labCaFile;
  const log = (line: string) => process.stderr.write(`[load] ${line}\n`);
  return {
    plan,
    servers: targets,
    wallets,
    chosen,
    walletMaxTxs: maxTxs,
    holdConcurrency: a['hold-concurrency'],
    blocks: a.blocks,
    payWallets: a['pay-wallets'],
    rate: a.rate,
    tlsInsecure: a['tls-insecure'],
    ca: caFile ? readCa(caFile) : undefined,
    timeoutMs: timeoutSeconds('--timeout', a.timeout),
    maxLineBytes: a['max-line-bytes'],
    db: a.db,
    summaryExport: a['summary-export'],
    ignoreUnanswered: a['ignore-unanswered'] ?? false,
    testOptions: a as unknown as Record<string, unknown>,
    title: `load, ${workload.name} workload${hold ? `, ${hold} held` : ''}, on ${targets.map((t) => t.name).join(', ')}`,
    setups: await labSetups(onLab),
    blockMaker: () => blockMaker(a, allOnLab, plan.naturalWaitMs),
    rssOf: onLab.size ? await labRss(onLab) : undefined,
    // --abuse: each server's process sampled beside the run, for its figures per phase.
    resources: plan.abuse ? await ownServerTargets(a, onLab) : undefined,
    sampleEveryS: a['sample-every'],
    notes: limit ? [`open files: limit ${limit.soft} (hard ${limit.hard}); ${holders.map((h) => `${h.sockets} for ${h.option}`).join(', ')} and a margin: about ${needed}`] : [],
    limits: await limitsOf(targets, a['limits-db']),
    strictLimits: a['strict-limits'] ?? false,
    log,
  };
}

/** Each held wallet is one socket (the most a held search may hold), and each of the abuse's connections another. */
function socketHolders(plan: WalletLoadPlan, hold: number): SocketHolder[] {
  const held = plan.notifySearch ? { option: `--max-hold ${plan.notifySearch.maxHold}`, sockets: plan.notifySearch.maxHold } : { option: `--hold ${hold}`, sockets: hold };
  const abuse = plan.abuse && { option: `--abuse ${plan.abuse.spec.text}`, sockets: plan.abuse.spec.profile.connections(plan.abuse.spec.params) };
  return abuse ? [held, abuse] : [held];
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
    let pid: number;
    try {
      pid = Number(fs.readFileSync(t.pidFile, 'utf8').trim());
    } catch {
      // Between a restart's kill and its start the server has no pid file: no RSS to read now.
      return null;
    }
    return (await readProcessTree(pid))?.rssBytes ?? null;
  };
}

/** A regtest node's RPC given by --mine-via (mining only); the lab's miner; or natural blocks. */
async function blockMaker(a: WalletLoadArgs, onLab: boolean, waitMs: number): Promise<DescribedBlockMaker> {
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
