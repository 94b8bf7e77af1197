/**
 * `load --workload`: wallets against one server after another. Per server, in this order:
 *   hold     N wallets synced (a few at a time) and kept connected and subscribed for the rest of
 *            the server's run, as idle wallets are; the server's RSS before and after gives its
 *            memory per held connection when its process is known;
 *   arrive   with --rate, new wallets arriving on schedule (open model: an arrival never waits
 *            for an earlier sync), each timed from its intended arrival;
 *   notify   with held wallets and a miner, blocks mined after paying some held wallets' next
 *            addresses: each held connection's headers notification, and each paid script's
 *            status notification, timed from the moment the block was asked for.
 * Every sync and notification is stored as it is judged; memory stays bounded by the held
 * sessions themselves.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ServerTarget } from '../core/targets';
import type { ClientOptions } from '../electrum/client';
import type { WalletLine } from '../core/wallet-line';
import { WalletStore } from '../store/wallets';
import { allHeard, judgeBlock, paymentHeard, type HeldConnection } from './notifications';
import { syncRecord, type SyncResult } from './sync';
import { walletSyncIteration, type WalletSyncUnit } from './sync-iteration';
import { RunClock } from '../engine/run-clock';
import { executorFor, type LoadModel } from '../engine/executors/registry';
import { hold as holdExecutor, type HoldFill } from '../engine/executors/hold';
import type { Pacer } from '../engine/executors/executor';
import { Rehold, type HeldWallet } from './rehold';
import type { HeldReconnects } from '../core/held-reconnects';
import type { Workload } from './workloads';
import { percentile } from '../core/quantiles';
import { sortedLine } from '../core/percentile-line';
import { isAnswered } from '../core/outcomes';
import { GeneratorTally, generatorVerdict, type GeneratorVerdict } from '../core/generator-check';
import { AnswerWatch, stoppedAnswering, type StoppedAnswering } from '../core/stopped-answering';
import type { LiveSeconds, ServerNow } from '../engine/sinks/live-seconds';
import { allOf, mapped, type UnitSink } from '../engine/sinks/unit-sink';
import { SyncRows } from '../engine/sinks/sync-rows';
import type { NotificationTally, WalletsLive } from '../engine/outputs/output';

/**
 * Where blocks come from: mined on request (the lab, or a regtest node), timed from the mining
 * call; or, with no `mineOne`, natural blocks, which nobody can time from their finding: each is
 * timed from the first held connection that heard it, so what is measured is how much later the
 * others heard it.
 */
export interface BlockMaker {
  /** Payments are possible only on a node whose keys we hold (the lab). */
  pay?: (addresses: string[], sats: number) => Promise<string>;
  mineOne?: () => Promise<{ height: number; askedNs: bigint; returnedNs: bigint }>;
  recordChange?: (blocks: number, payments: number) => void;
  /** Natural blocks: how long to wait for each. */
  naturalWaitMs?: number;
}

export interface WalletLoadOptions {
  servers: ServerTarget[];
  workload: Workload;
  wallets: WalletLine[];
  connection: Omit<ClientOptions, 'host' | 'port' | 'tls'>;
  hold: number;
  /** Syncs at once while filling the hold. */
  holdConcurrency: number;
  /** Wallets arriving at a constant rate: the same as `arrivals: { kind: 'rate', rate }`. */
  rate?: number;
  /** How new wallets arrive: any executor of the engine (src/engine/executors/) over wallet syncs. */
  arrivals?: LoadModel;
  /** The arrivals' length (or limit, for iteration executors). */
  durationMs: number;
  notify?: { maker: BlockMaker; blocks: number; payWallets: number; amountSat: number; waitMs: number; paymentWaitMs: number };
  /** The server process's RSS, where it is known (lab servers): memory per held connection. */
  rssOf?: (server: string) => Promise<number | null>;
  log: (line: string) => void;
  /** The run's watchers (--dashboard, --out): every sync as it ends, second by second; the wallets held and notified through now(). */
  live?: LiveSeconds<WalletUnit>;
}

/** What a wallet load's units are, as its watchers name them: a sync filling the hold, or an arriving wallet's. */
export type WalletUnit = 'hold-sync' | 'sync';

export interface NotifyStats {
  blocks: number;
  headers: { expected: number; ok: number; missing: number; duplicate: number; p50Ms: number | null; p90Ms: number | null; p99Ms: number | null; maxMs: number | null };
  scripthash: { expected: number; ok: number; missing: number; duplicate: number; p50Ms: number | null; p90Ms: number | null; p99Ms: number | null; maxMs: number | null };
  /** How long the node took to answer the mining call: the uncertainty of "block found". */
  mineCallMs: number | null;
  /** Our event loop's delay p99 while blocks were judged: how late we may have read a notification. */
  loopDelayP99Ms: number;
}

export interface ServerLoadSummary {
  server: string;
  held: number;
  holdFailed: number;
  holdSeconds: number;
  rssPerHeldKiB: number | null;
  /**
   * Every intended arrival ends as one of: synced, failed (by `failures` category), or not started
   * because the run stopped first; `intended` is their sum.
   */
  arrivals: {
    intended: number;
    synced: number;
    failed: number;
    failures: Record<string, number>;
    notStarted: number;
    p50Ms: number | null;
    p90Ms: number | null;
    p99Ms: number | null;
    lagP99Ms: number | null;
    stoppedAnswering: StoppedAnswering | null;
    /** The one generator check: arrivals that started late by a material share of their time to synced. */
    generator: GeneratorVerdict;
  } | null;
  notify: NotifyStats | null;
  /** Held connections lost, held again and when the server was gone; null with nothing held. */
  reconnects: HeldReconnects | null;
  loopDelayP99Ms: number;
}

/** How long syncs still running at a stop may take to end before they are cut short: a stop takes at most 2 s. */
const STOP_GRACE_MS = 1500;

/** A sync of a wallet load as its sinks get it: filling the hold, or an arrival (stored with when it was due and how late it started). */
interface LoadSynced {
  server: string;
  serverId: number;
  unit: WalletUnit;
  result: SyncResult;
  /** How late it started after it was due (a hold's sync: after its turn came). */
  lagMs: number;
  arrival?: { intendedMs: number; lagMs: number };
}

export class WalletLoad {
  private stopping = false;
  /** The executor running now (the hold's fill, the arrivals): a stop reaches it at once. */
  private pacer: Pacer | undefined;
  /** The held wallets' way back on the server run now: a stop cuts it short. */
  private rehold: Rehold | undefined;
  private markStopped!: () => void;
  /** Resolves at the stop: syncs still running then get a short grace, no more (a stop takes at most 2 s). */
  private readonly stopSignal = new Promise<void>((resolve) => (this.markStopped = resolve));
  /** Per server: its held wallets now, and the notifications judged so far (for its watchers). */
  private readonly watched = new Map<string, { held: HeldWallet[]; wallets: WalletsLive; arriving?: { clock: RunClock; pacer: Pacer } }>();

  /** Where each sync's one result goes: the run's rows, and the watchers' seconds when there are any. */
  private readonly synced: UnitSink<LoadSynced>;

  constructor(
    private readonly o: WalletLoadOptions,
    private readonly store: WalletStore,
    private readonly runId: number,
    private readonly serverIds: Map<string, number>,
  ) {
    const live = o.live;
    this.synced = allOf<LoadSynced>([
      mapped(new SyncRows(store, runId), ({ serverId, result, arrival }) => ({ row: syncRecord(serverId, result, 0, false, arrival ?? {}), identity: result })),
      live && { record: ({ server, unit, result, lagMs }) => live.ended(server, unit, { outcome: result.status, durationNs: Number(result.durationNs), lagNs: lagMs * 1e6 }) },
    ]);
  }

  stop(): void {
    this.stopping = true;
    this.markStopped();
    this.pacer?.stop();
    this.rehold?.close();
  }

  /** Runs `pacer` to its end, where a stop reaches it (one that came before it began included). */
  private async paced(pacer: Pacer): Promise<void> {
    this.pacer = pacer;
    if (this.stopping) pacer.stop();
    try {
      await pacer.run();
    } finally {
      this.pacer = undefined;
    }
  }

  /** How wallets arrive, if they do. */
  private get arrivalModel(): LoadModel | undefined {
    return this.o.arrivals ?? (this.o.rate ? { kind: 'rate', rate: this.o.rate } : undefined);
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /**
   * The run's servers one after another (as load's, they never share the generator), each
   * announced through `onStart` first; a stop ends the run after the current server.
   */
  async runServers(onStart: (t: ServerTarget) => void): Promise<ServerLoadSummary[]> {
    const summaries: ServerLoadSummary[] = [];
    for (const t of this.o.servers) {
      if (this.stopping) break;
      onStart(t);
      summaries.push(await this.runServer(t));
    }
    return summaries;
  }

  /** What the watchers see of `server` at a second's close: the arrivals' pace, the wallets held, the notifications so far. */
  now(server: string): ServerNow {
    const w = this.watched.get(server);
    if (!w) return {};
    const model = this.arrivalModel;
    const sinceMs = w.arriving ? w.arriving.clock.now() / 1e6 : 0;
    // A held wallet being held again after its connection was lost is not held now.
    const held = w.held.reduce((n, h) => n + (h.session.connection.usable ? 1 : 0), 0);
    return {
      targetRate: w.arriving && model ? executorFor(model).targetRateAt(model, sinceMs) : null,
      vus: w.arriving ? w.arriving.pacer.vusAt(sinceMs) : null,
      state: { wallets: { ...w.wallets, held } },
    };
  }

  async runServer(t: ServerTarget): Promise<ServerLoadSummary> {
    const serverId = this.serverIds.get(t.name)!;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const held: HeldWallet[] = [];
    const empty = (): NotificationTally => ({ expected: 0, ok: 0, missing: 0, duplicate: 0, p50Ms: null, p99Ms: null, maxMs: null });
    this.watched.set(t.name, { held, wallets: { held: 0, wanted: this.o.hold, blocks: 0, headers: empty(), scripthash: empty() } });
    this.o.live?.begin(t.name);
    const rehold = (this.rehold = new Rehold(this.connection(t), this.o.workload, Date.now(), this.o.holdConcurrency));
    if (this.stopping) rehold.close();
    try {
      const rssBefore = (await this.o.rssOf?.(t.name)) ?? null;
      const fill = await this.fillHold(t, serverId, held, rehold);
      const rssAfter = held.length > 0 ? ((await this.o.rssOf?.(t.name)) ?? null) : null;
      const model = this.arrivalModel;
      const arrivals = model ? await this.arrivals(t, serverId, model) : null;
      const notify = this.o.notify && held.length > 0 && !this.stopping ? await this.notify(t.name, serverId, held) : null;
      rehold.close();
      return {
        server: t.name,
        held: held.length,
        holdFailed: fill.failed,
        holdSeconds: fill.seconds,
        // Only when every sync held: a server that refused or dropped connections may be going down.
        rssPerHeldKiB: rssBefore !== null && rssAfter !== null && held.length > 0 && fill.failed === 0 ? (rssAfter - rssBefore) / held.length / 1024 : null,
        arrivals,
        notify,
        reconnects: held.length > 0 ? rehold.summary() : null,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
      };
    } finally {
      rehold.close();
      this.rehold = undefined;
      loop.disable();
      // The last second shows what was held to the end, before the wallets are let go.
      await this.o.live?.finish(t.name);
      for (const h of held) h.session.close();
    }
  }

  private connection(t: ServerTarget): ClientOptions {
    return { ...this.o.connection, host: t.host, port: t.port, tls: t.tls };
  }

  /** Syncs wallets, cycling through the file, until `hold` of them are held (or too many failed): the hold executor. */
  private async fillHold(t: ServerTarget, serverId: number, held: HeldWallet[], rehold: Rehold) {
    const started = Date.now();
    const want = this.o.hold;
    if (want === 0) return { failed: 0, seconds: 0 };
    let lastLog = Date.now();
    const iteration = walletSyncIteration({
      failed: () => this.pacer?.stop(),
      clock: new RunClock(process.hrtime.bigint()),
      workload: this.o.workload,
      wallets: this.o.wallets,
      connection: this.connection(t),
      hold: true,
      starting: () => this.o.live?.started(t.name),
      ended: ({ result: r, connection: conn, lagMs }) => {
        this.synced.record({ server: t.name, serverId, unit: 'hold-sync', result: r, lagMs });
        // Stopped meanwhile, or a sync that kept no session (it failed): nothing to hold.
        const keep = r.session !== undefined && !this.stopping && held.length < want;
        if (keep) {
          r.subscribed!.forEach((sh) => conn!.subscribed.add(sh));
          conn!.heard.length = 0; // what came during the sync is not a block's
          held.push({ ...conn!, session: r.session!, wallet: r.wallet });
          rehold.watch(held[held.length - 1]);
        } else r.session?.close();
        if (Date.now() - lastLog > 2000) {
          lastLog = Date.now();
          this.o.log(`${t.name}: ${held.length}/${want} wallets held (${fill.failed} syncs failed)`);
        }
        return keep;
      },
    });
    const fill = holdExecutor.create(iteration, { kind: 'hold', sessions: want, concurrency: this.o.holdConcurrency }, 0) as HoldFill;
    await this.paced(fill);
    // Syncs still running when a stop came are cut short after a grace; their sessions are closed when they end.
    // The summary counts none of them (nothing was held): nor do the watchers.
    this.o.live?.cutShort(t.name, 'hold-sync', await iteration.settled(this.stopSignal, STOP_GRACE_MS), false);
    this.o.log(`${t.name}: ${held.length} wallets held in ${((Date.now() - started) / 1000).toFixed(1)} s (${fill.failed} syncs failed)`);
    return { failed: fill.failed, seconds: (Date.now() - started) / 1000 };
  }

  /**
   * Wallets arriving as `model` says (any executor of the engine), each timed from its intended
   * arrival; every unit the schedule held ends as one outcome: synced, failed by category, or not
   * started because the run stopped first.
   */
  private async arrivals(t: ServerTarget, serverId: number, model: LoadModel): Promise<NonNullable<ServerLoadSummary['arrivals']>> {
    const executor = executorFor(model);
    const clock = new RunClock(process.hrtime.bigint());
    const sinceStartMs = () => clock.now() / 1e6;
    const fromIntended: number[] = [];
    const lags: number[] = [];
    const failures: Record<string, number> = {};
    let failed = 0;
    // Whether the server still answers (ms since the arrivals began): its last answer, and the syncs due after it that got none.
    const answers = new AnswerWatch();
    const tally = new GeneratorTally();
    const ended = ({ result: r, intendedMs, lagMs }: WalletSyncUnit): boolean => {
      this.synced.record({ server: t.name, serverId, unit: 'sync', result: r, lagMs, arrival: { intendedMs, lagMs } });
      lags.push(lagMs);
      tally.note(lagMs, lagMs + Number(r.durationNs) / 1e6);
      if (r.status === 'ok') fromIntended.push(lagMs + Number(r.durationNs) / 1e6);
      else {
        failed++;
        failures[r.status] = (failures[r.status] ?? 0) + 1;
      }
      const answered = isAnswered(r.status);
      answers.note(answered, intendedMs, sinceStartMs());
      return answered;
    };
    const iteration = walletSyncIteration({
      clock,
      workload: this.o.workload,
      wallets: this.o.wallets,
      connection: this.connection(t),
      ended,
      failed: () => this.pacer?.stop(),
      starting: () => this.o.live?.started(t.name),
    });
    const pacer = executor.create(iteration, model, executor.lengthMs(model, this.o.durationMs));
    const watched = this.watched.get(t.name)!;
    watched.arriving = { clock, pacer };
    await this.paced(pacer);
    const notStarted = pacer.unsent?.() ?? 0;
    // Arrivals still syncing when a stop's grace ran out end as cut short, as unanswered requests do.
    const cutShort = await iteration.settled(this.stopSignal, STOP_GRACE_MS);
    watched.arriving = undefined;
    this.o.live?.cutShort(t.name, 'sync', cutShort, true);
    if (cutShort > 0) {
      failed += cutShort;
      failures['cut-short'] = (failures['cut-short'] ?? 0) + cutShort;
      answers.cutShort(cutShort);
    }
    const intended = iteration.started + notStarted;
    const line = sortedLine(fromIntended.sort((a, b) => a - b));
    return {
      intended,
      synced: line.count,
      failed,
      failures,
      notStarted,
      p50Ms: line.p50,
      p90Ms: line.p90,
      p99Ms: line.p99,
      lagP99Ms: percentile(lags.sort((a, b) => a - b), 0.99),
      stoppedAnswering: stoppedAnswering({
        answered: answers.answered,
        of: intended,
        lastAnswerS: answers.lastAnswer === null ? null : answers.lastAnswer / 1000,
        unansweredAfterLastAnswer: answers.unansweredAfter,
        endS: sinceStartMs() / 1000,
      }),
      generator: generatorVerdict(tally.atRisk, tally.units, 'arrivals', 'started late'),
    };
  }

  private async notify(server: string, serverId: number, held: HeldWallet[]): Promise<NotifyStats> {
    const n = this.o.notify!;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const headers: number[] = [];
    const scripts: number[] = [];
    const mineCalls: number[] = [];
    const totals = { headers: { expected: 0, ok: 0, missing: 0, duplicate: 0 }, scripthash: { expected: 0, ok: 0, missing: 0, duplicate: 0 } };
    const nextUnused = new Map<string, number>();
    let blocks = 0;
    for (let b = 0; b < n.blocks && !this.stopping; b++) {
      const paid = new Set<string>();
      if (n.maker.pay && n.payWallets > 0) {
        const wallets = [...new Map(held.map((h) => [h.wallet.wallet, h.wallet])).values()].slice(0, n.payWallets);
        const addresses: string[] = [];
        for (const w of wallets) {
          const index = nextUnused.get(w.wallet) ?? w.expected.usedScripts.receive;
          const s = w.chains.receive[index];
          if (!s?.address) continue;
          nextUnused.set(w.wallet, index + 1);
          addresses.push(s.address);
          paid.add(s.scripthash);
        }
        if (addresses.length) {
          const since = process.hrtime.bigint();
          await n.maker.pay(addresses, n.amountSat);
          n.maker.recordChange?.(0, 1);
          await until(() => paymentHeard(held, paid, since), n.paymentWaitMs);
        }
      }
      for (const h of held) h.heard.length = 0; // the payment's mempool notifications are not the block's
      const block = n.maker.mineOne ? await n.maker.mineOne() : await naturalBlock(held, n.maker.naturalWaitMs ?? 0);
      if (!block) {
        this.o.log(`no block within ${(n.maker.naturalWaitMs ?? 0) / 1000} s; stopping the wait for blocks`);
        break;
      }
      n.maker.recordChange?.(1, 0);
      if (n.maker.mineOne) mineCalls.push(Number(block.returnedNs - block.askedNs) / 1e6);
      await until(() => allHeard(held, block.height, paid, block.askedNs), n.waitMs);
      const j = judgeBlock(held, block.height, paid, block.askedNs);
      this.store.addNotifications(this.runId, j.rows.map((r) => ({ ...r, serverId })));
      for (const r of j.rows) if (r.status === 'ok') (r.kind === 'headers' ? headers : scripts).push(Number(r.latencyNs) / 1e6);
      for (const k of ['headers', 'scripthash'] as const) for (const f of ['expected', 'ok', 'missing', 'duplicate'] as const) totals[k][f] += j[k][f];
      blocks++;
      const watched = this.watched.get(server)!.wallets;
      watched.blocks = blocks;
      // Percentiles so far only for watchers: each sorts every delay of the run.
      if (this.o.live) {
        const [h, sc] = [latencyLine(headers), latencyLine(scripts)];
        watched.headers = { ...totals.headers, p50Ms: h.p50Ms, p99Ms: h.p99Ms, maxMs: h.maxMs };
        watched.scripthash = { ...totals.scripthash, p50Ms: sc.p50Ms, p99Ms: sc.p99Ms, maxMs: sc.maxMs };
      }
      this.o.log(`block ${block.height}: ${j.headers.ok}/${j.headers.expected} headers notifications, ${j.scripthash.ok}/${j.scripthash.expected} script notifications, ${j.headers.missing + j.scripthash.missing} missing`);
    }
    return {
      blocks,
      headers: { ...totals.headers, ...latencyLine(headers) },
      scripthash: { ...totals.scripthash, ...latencyLine(scripts) },
      mineCallMs: percentile(mineCalls.sort((a, b) => a - b), 0.5),
      loopDelayP99Ms: (loop.disable(), loop.percentile(99) / 1e6),
    };
  }
}

/** Percentiles of notification latencies (ms), sorting `ms` in place (their order means nothing). */
function latencyLine(ms: number[]): { p50Ms: number | null; p90Ms: number | null; p99Ms: number | null; maxMs: number | null } {
  const line = sortedLine(ms.sort((a, b) => a - b));
  return { p50Ms: line.p50, p90Ms: line.p90, p99Ms: line.p99, maxMs: line.max };
}

/** The next block any held connection hears of, timed from the first that heard it. */
async function naturalBlock(held: HeldConnection[], maxMs: number): Promise<{ height: number; askedNs: bigint; returnedNs: bigint } | null> {
  let first: { height: number; atNs: bigint } | null = null;
  const seen = () => {
    for (const c of held) {
      for (const n of c.heard) {
        const h = n.method === 'blockchain.headers.subscribe' && Array.isArray(n.params) ? (n.params[0] as { height?: unknown })?.height : undefined;
        if (typeof h === 'number' && (!first || n.atNs < first.atNs)) first = { height: h, atNs: n.atNs };
      }
    }
    return first !== null;
  };
  await until(seen, maxMs);
  const f = first as { height: number; atNs: bigint } | null;
  return f ? { height: f.height, askedNs: f.atNs, returnedNs: f.atNs } : null;
}

async function until(done: () => boolean, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}
