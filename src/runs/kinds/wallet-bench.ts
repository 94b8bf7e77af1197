/**
 * Wallet bench (`bench --workload`): what is particular to it around the wallet bench
 * (src/wallet/bench.ts): its record made with each server's setup, every sync stored as it ends,
 * and at the end each server's figures from the stored syncs (a median of per-wallet medians, the
 * largest wallet's, failures and mismatches). The session does the rest.
 */
import { toolInfo } from '../../core/tool-info';
import { formatServerUrl } from '../../core/server-address';
import { medianOfUnsorted as median } from '../../core/quantiles';
import { answeringOf, type Answering } from '../../core/answering';
import type { StoppedAnswering } from '../../core/stopped-answering';
import type { LoadedWallets } from '../../core/wallet-line';
import { walletsNetwork } from '../../dataset/expected-network';
import { reachedIdentity, replyHolds, setupsWithReplies, type ReplyHold } from '../../servers/reply-hold';
import { WalletStore } from '../../store/wallets';
import type { ResultsStore } from '../../store/results';
import { WalletBench, type PassSynced, type WalletBenchOptions } from '../../wallet/bench';
import { PlannedRunLive, type PlannedUnitEnd } from '../../engine/planned-live';
import { mapped } from '../../engine/sinks/unit-sink';
import { ensureReachable } from '../reachable';
import { RunSession } from '../session';
import { preflight, walletDemands, type ServerLimits } from '../doctor';
import type { WatchPlan } from '../outputs';
import type { RunOutcome } from '../outcome';

export interface WalletBenchRun {
  opts: WalletBenchOptions;
  wallets: LoadedWallets;
  db: string;
  watch: WatchPlan;
  title: string;
  ignoreUnanswered: boolean;
  /** Follows the bench's events (progress lines). */
  observe?: (bench: WalletBench) => void;
  /** What is known of each server's limits, for the pre-flight doctor (absent: nothing); `strictLimits` refuses a plan over one. */
  limits?: ServerLimits;
  strictLimits?: boolean;
  log: (line: string) => void;
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

export interface WalletBenchDetail {
  workload: string;
  verify: boolean;
  rows: WalletBenchSummaryRow[];
  /** ElectrumX's reply hold, for each server whose sync times contain it. */
  replyHolds: ReplyHold[];
}

export async function walletBenchSession(run: WalletBenchRun): Promise<{ outcome: RunOutcome<WalletBenchDetail>; code: number }> {
  // Before anything is claimed or connected. One wallet syncs at a time, on one connection: its
  // subscriptions, batches and histories are what can cross a limit.
  const { opts } = run;
  const wallets = opts.limit ? run.wallets.wallets.slice(0, opts.limit) : run.wallets.wallets;
  preflight(opts.servers, walletDemands({ workload: opts.workload, wallets, connections: 0, connectionsFrom: '' }), run.limits ?? new Map(), run.strictLimits ?? false, run.log);
  return RunSession.run({ db: run.db, watch: run.watch, title: run.title, ignoreUnanswered: run.ignoreUnanswered }, (session) => measure(session, run));
}

async function measure(session: RunSession, run: WalletBenchRun): Promise<RunOutcome<WalletBenchDetail>> {
  const { opts } = run;
  // The syncs' own connections skip the courtesy calls as the wallets do: what the servers said here is what the run keeps of held replies.
  const said = await ensureReachable(opts.servers, { timeoutMs: opts.timeoutMs, maxLineBytes: opts.maxLineBytes, tlsInsecure: opts.tlsInsecure, ca: opts.ca }, walletsNetwork(run.wallets));
  const setups = setupsWithReplies(opts.setups, said);
  const holds = replyHolds(opts.servers.map((t) => reachedIdentity(t, said)));
  const results = session.openStore();
  const servers = opts.servers.map((t) => t.name);
  let bench: WalletBench | undefined;
  const live = session.outputs.empty ? undefined : new PlannedRunLive(session.outputs, { passes: opts.passes, warmup: opts.warmup, concurrency: 1, servers }, () => bench?.stop());
  bench = new WalletBench(opts, results, live ? [mapped(live, syncEnd)] : []);
  const running = bench;
  session.onStop(() => running.stop());
  run.observe?.(bench);
  if (live) {
    bench.on('start', ({ total }: { total: number }) => live.start(total, 0));
    bench.on('call', ({ server }: { server: string }) => live.started(server));
  }
  let end: Awaited<ReturnType<WalletBench['run']>>;
  try {
    end = await bench.run(run.wallets, { open: () => session.record(() => createRun(results, run, setups)) });
  } finally {
    // What an output threw on the way fails the command, the run kept.
    await live?.stop();
  }
  const store = new WalletStore(results);
  const status = session.statusOf({ failed: false, aborted: false, planDone: end.planDone });
  const rows = figures(store, end);
  const stoppedAnswering = Object.fromEntries(end.stoppedAnswering);
  // Kept with the run: the report judges a server's answering from the stored syncs, which carry no times.
  store.finishRun(end.runId, status, { rows, stoppedAnswering });
  const answering = answeringOfSyncs(store, end.runId, end.serverIds, opts.timeoutMs, end.stoppedAnswering);
  return {
    kind: 'wallet-bench',
    runId: end.runId,
    db: run.db,
    status,
    answering,
    thresholds: [],
    regressed: [],
    json: { db: run.db, workload: opts.workload.name, runId: end.runId, status, rows, answering, replyHolds: holds },
    detail: { workload: opts.workload.name, verify: opts.verify, rows, replyHolds: holds },
  };
}

function createRun(results: ResultsStore, run: WalletBenchRun, setups: Map<string, unknown>) {
  const o = run.opts;
  const { version, gitCommit } = toolInfo();
  return new WalletStore(results).createRun(
    {
      kind: 'bench',
      tool_version: version,
      git_commit: gitCommit,
      config: { ...o, ca: undefined, workload: o.workload.name, setups: undefined },
      workload: o.workload.name,
      wallets_path: run.wallets.path,
      wallets_hash: run.wallets.hash,
      passes: o.passes,
      warmup: o.warmup,
    },
    o.servers.map((t) => ({ name: t.name, profile: t.profile, url: formatServerUrl(t, 'tcp'), software: null, protocol: null, setup: setups.get(t.name) })),
  );
}

/** Each server's figures, from the stored syncs as a bench's come from its samples. */
function figures(store: WalletStore, end: Awaited<ReturnType<WalletBench['run']>>): WalletBenchSummaryRow[] {
  const { wallets } = end;
  const largestWallet = wallets.reduce((a, b) => (b.expected.txCount > a.expected.txCount ? b : a));
  const byServer = new Map(store.benchFigures(end.runId).map((f) => [f.serverId, f]));
  return [...end.serverIds].map(([server, id]) => {
    const f = byServer.get(id);
    const byWallet = f?.byWallet ?? new Map<string, number[]>();
    const medians = [...byWallet.values()].map((xs) => median(xs)!);
    const largest = byWallet.get(largestWallet.wallet);
    return {
      server,
      wallets: wallets.length,
      syncs: f?.syncs ?? 0,
      failed: f?.failed ?? 0,
      mismatched: f?.mismatched ?? 0,
      medianMs: medians.length ? median(medians) : null,
      largest: { wallet: largestWallet.wallet, txs: largestWallet.expected.txCount, medianMs: largest ? median(largest) : null },
      firstFailure: end.firstFailures.get(server),
    };
  });
}

/** Each server's answering over every sync it was given (warm-up passes too), from the stored syncs. */
function answeringOfSyncs(store: WalletStore, runId: number, serverIds: Map<string, number>, timeoutMs: number, stopped: Map<string, StoppedAnswering | null>): Answering[] {
  const byServer = store.syncOutcomes(runId);
  return [...serverIds].map(([server, id]) => answeringOf(server, byServer.get(id) ?? {}, { unit: 'wallet sync', timeoutMs, stoppedAnswering: stopped.get(server) ?? null }));
}

/** A wallet sync of the plan as the watchers take it. */
function syncEnd({ unit, result, done }: PassSynced): PlannedUnitEnd {
  return { server: unit.server.name, unit: 'sync', end: { outcome: result.status, durationNs: Number(result.durationNs) }, pass: unit.pass, done };
}
