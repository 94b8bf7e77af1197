/**
 * `load --workload`: wallets against one server after another, each server's run a few segments
 * of the engine's runner (src/engine/runner.ts), whose units are wallet syncs (sync-units.ts), so
 * its seconds, summary, generator check and --find-max are a request load's. Per server, in order:
 *   hold     N wallets synced (a few at a time) and kept connected and subscribed for the rest of
 *            the server's run, as idle wallets are (the hold executor); the server's RSS before
 *            and after gives its memory per held connection when its process is known;
 *   arrive   new wallets arriving as any load executor paces them (open model: an arrival never
 *            waits for an earlier sync), each timed from its intended arrival; or --find-max's
 *            steps, the highest arrival rate within an SLO on time to synced;
 *   notify   with held wallets and a miner, blocks mined after paying some held wallets' next
 *            addresses: each held connection's headers notification, and each paid script's
 *            status notification, timed from the moment the block was asked for.
 * Every sync and notification is stored as it is judged; memory stays bounded by the held
 * sessions themselves.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ServerTarget } from '../servers/targets';
import type { ClientOptions } from '../electrum/client';
import type { WalletLine } from '../core/wallet-line';
import { WalletStore } from '../store/wallets';
import { allHeard, judgeBlock, paymentHeard } from './notifications';
import { syncRecord, type SyncResult } from './sync';
import { walletSyncUnits } from './sync-units';
import type { Blocks } from './blocks';
import { until } from '../core/until';
import { StepStopped } from '../engine/coordinator';
import type { LoadModel } from '../engine/executors/registry';
import { Rehold, type HeldWallet } from './rehold';
import type { HeldReconnects } from '../core/held-reconnects';
import type { Workload } from './workloads';
import { percentile } from '../core/quantiles';
import { sortedLine } from '../core/percentile-line';
import { isAnswered } from '../core/outcomes';
import type { GeneratorVerdict } from '../core/generator-check';
import type { StoppedAnswering } from '../core/stopped-answering';
import { mapped, type UnitSink } from '../engine/sinks/unit-sink';
import { SyncRows } from '../engine/sinks/sync-rows';
import type { LiveState, NotificationTally, WalletsLive } from '../engine/outputs/output';
import { LoadRunner, type Segment, type ServerResult } from '../engine/runner';
import type { Shard } from '../core/shard';
import type { UnitSource } from '../engine/unit-source';
import { inTurn } from '../engine/servers-in-turn';
import { findMaxOnServer, type FindMaxOptions, type FindMaxResult, type Slo, type StepResult } from '../engine/find-max';
import { summarise, type ServerSummary } from '../engine/summary';
import { mergeTurns } from '../engine/merge-turns';
import type { AbuseSpec } from '../engine/abuse/spec';
import type { AbuseTally } from '../engine/abuse/wire';
import { collateralOf, type Collateral, type OrdinaryUnit } from '../engine/abuse/collateral';
import { notificationsByPhase, type AbuseWindow, type Phase, type PhaseBlock, type PhaseNotifications, type ServerResources } from '../engine/abuse/server-phases';

export interface WalletLoadOptions {
  servers: ServerTarget[];
  workload: Workload;
  wallets: WalletLine[];
  connection: Omit<ClientOptions, 'host' | 'port' | 'tls' | 'websocket'>;
  hold: number;
  /** Syncs at once while filling the hold. */
  holdConcurrency: number;
  /** Wallets arriving at a constant rate: the same as `arrivals: { kind: 'rate', rate }`. */
  rate?: number;
  /** How new wallets arrive: any executor of the engine (src/engine/executors/) over wallet syncs. */
  arrivals?: LoadModel;
  /** The arrivals' length (or limit, for iteration executors). */
  durationMs: number;
  /** --find-max: instead of `arrivals`, the highest arrival rate whose time to synced meets the SLO, held wallets kept. */
  search?: FindMaxOptions;
  /** --find-max --slo-notify: the most held wallets whose headers notifications meet the SLO, stepping up from `hold`. */
  notifySearch?: { slo: Slo; factor: number; maxHold: number };
  /**
   * One shard of a coordinated test (`hold` and `arrivals` are then this shard's share): the
   * arrivals thinned to it, and every segment of a server's run started with the other shards'.
   */
  shard?: Shard;
  rendezvous?: (meeting: string) => Promise<number>;
  /** Blocks and their notifications: `source` makes (or, on a coordinated test's other shards, learns) each block. */
  notify?: { source: Blocks; blocks: number; payWallets: number; amountSat: number; waitMs: number; paymentWaitMs: number };
  /** The server process's RSS, where it is known (lab servers): memory per held connection. */
  rssOf?: (server: string) => Promise<number | null>;
  /** --abuse: one profile run beside the arriving wallets, from `atMs` into their schedule for `forMs`. */
  abuse?: { spec: AbuseSpec; atMs: number; forMs: number };
  log: (line: string) => void;
}

/** What an abuse did beside the ordinary workload, and what it cost it (src/engine/abuse/collateral.ts). */
export interface AbuseSummary {
  profile: string;
  spec: string;
  params: Record<string, number>;
  /** When it started and ended, seconds into the arrivals' schedule. */
  startS: number;
  endS: number;
  tally: AbuseTally;
  collateral: Collateral;
  /** Epoch ms: the arrivals' start, the abuse's start and end, the arrivals' end. */
  window: AbuseWindow;
  /**
   * The held wallets' headers notifications of the blocks mined in each phase (--notify with held
   * wallets and blocks mined on request); null with the reason when none were.
   */
  notifications: Record<Phase, PhaseNotifications> | null;
  notificationsWhy?: string;
  /** The server's process per phase, as the run's sampler read it; the session adds it once sampling has stopped. */
  resources?: ServerResources;
  /** Whether the server stayed up (server-phases.ts's `stayedUp`), with `resources`. */
  stayedUp?: boolean | null;
}

/** What a wallet load's units are, as its watchers name them: a sync filling the hold, or an arriving wallet's. */
export type WalletUnit = 'hold-sync' | 'sync';

/** One step of --slo-notify's search: wallets held, blocks mined, the headers notifications' delay at the SLO's percentile. */
export interface HeldStep {
  step: number;
  held: number;
  wanted: number;
  blocks: number;
  p50Ms: number | null;
  sloValueMs: number | null;
  missing: number;
  passed: boolean;
  why: string;
}

export interface HeldSearchResult {
  server: string;
  slo: Slo;
  steps: HeldStep[];
  /** The most wallets held at a step that passed; null when none did. */
  maxHeld: number | null;
  limitedBy: 'server' | 'hold' | 'max-hold' | 'interrupted';
  statement: string;
}

/** The search's result, and the last step's notifications (the server's summary shows them). */
interface HeldSearch {
  found: HeldSearchResult;
  last: NotifyStats | null;
}

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
  /** The failed hold syncs by how each ended (an error category); absent in runs stored before it was kept. */
  holdFailures?: Record<string, number>;
  holdSeconds: number;
  /**
   * The server stopped answering its wallet syncs over its whole run: the hold's fills, the
   * arrivals or every step of their search, as one run's (times from the start of the first), so a
   * silence that began in the hold and went on through the arrivals is one, dated when it began.
   * Absent in runs stored before it was kept.
   */
  stoppedAnswering?: StoppedAnswering | null;
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
    /** Arrivals answered (synced, or ended by the server's error reply) per second of the schedule. */
    answeredRate: number;
    p50Ms: number | null;
    p90Ms: number | null;
    p99Ms: number | null;
    lagP99Ms: number | null;
    stoppedAnswering: StoppedAnswering | null;
    /** The one generator check: arrivals that started late by a material share of their time to synced. */
    generator: GeneratorVerdict;
  } | null;
  /**
   * --find-max: every step's arrivals by how each ended (`arrivals` is the last step's alone), so
   * that whether the server answered is said of the whole search. Absent without a search.
   */
  searchArrivals?: Record<string, number>;
  notify: NotifyStats | null;
  /** Held connections lost, held again and when the server was gone; null with nothing held. */
  reconnects: HeldReconnects | null;
  loopDelayP99Ms: number;
  /** --abuse's profile and its collateral; absent without --abuse (or when the run stopped before it began). */
  abuse?: AbuseSummary;
}

/** A sync of a wallet load as its rows get it: filling the hold, or an arrival (stored with when it was due and how late it started). */
interface LoadSynced {
  serverId: number;
  result: SyncResult;
  arrival?: { intendedMs: number; lagMs: number };
}

/** What a wallet load's servers gave: each one's summary, the searches of --find-max, and what ended the run early. */
export interface WalletLoadDone {
  summaries: ServerLoadSummary[];
  searches: FindMaxResult[];
  heldSearches: HeldSearchResult[];
  failure?: unknown;
}

export class WalletLoad {
  private stopping = false;
  /** The held wallets' way back on the server run now: a stop cuts it short. */
  private rehold: Rehold | undefined;
  /** Per server: its held wallets now, and the notifications judged so far (for its watchers). */
  private readonly watched = new Map<string, { held: HeldWallet[]; wallets: WalletsLive }>();
  /** Where each sync's one result goes: the run's rows (the seconds count it as the runner's unit). */
  private readonly synced: UnitSink<LoadSynced>;
  /** Per server, with --abuse: each arriving wallet's sync as the collateral sees it. */
  private readonly ordinary = new Map<string, OrdinaryUnit[]>();
  /**
   * Each server's hold, arrivals and blocks as segments of one runner: the same seconds, summary,
   * generator check and find-max as a request load's, over wallet syncs (sync-units.ts).
   */
  readonly runner: LoadRunner;

  constructor(
    private readonly o: WalletLoadOptions,
    private readonly store: WalletStore,
    private readonly runId: number,
    private readonly serverIds: Map<string, number>,
  ) {
    this.synced = mapped(new SyncRows(store, runId), ({ serverId, result, arrival }) => ({ row: syncRecord(serverId, result, 0, false, arrival ?? {}), identity: result }));
    // Arriving wallets are the run's units unless a segment says otherwise.
    this.runner = new LoadRunner({ servers: o.servers, model: this.arrivalModel ?? { kind: 'rate', rate: 1 }, durationMs: o.durationMs, shard: o.shard, rendezvous: o.rendezvous }, (t) => this.arriving(t));
  }

  stop(): void {
    this.stopping = true;
    this.runner.stop();
    this.rehold?.close();
    this.o.notify?.source.release();
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
  async runServers(onStart: (t: ServerTarget) => void, onStep: (t: ServerTarget, s: StepResult) => void = () => undefined): Promise<WalletLoadDone> {
    const searches: FindMaxResult[] = [];
    const heldSearches: HeldSearchResult[] = [];
    const done = await inTurn(this, this.o.servers, async (t, i) => {
      onStart(t);
      const { summary, search, heldSearch } = await this.runServerSearching(t, i, (s) => onStep(t, s));
      if (search) searches.push(search);
      if (heldSearch) heldSearches.push(heldSearch);
      return summary;
    });
    return { summaries: done.results, searches, heldSearches, failure: done.failure };
  }

  /** What the watchers see of `server` at a second's close besides its units: the wallets held, the notifications so far. */
  now(server: string): LiveState | undefined {
    const w = this.watched.get(server);
    if (!w) return undefined;
    // A held wallet being held again after its connection was lost is not held now.
    const held = w.held.reduce((n, h) => n + (h.session.connection.usable ? 1 : 0), 0);
    return { wallets: { ...w.wallets, held } };
  }

  async runServer(t: ServerTarget, index = 0): Promise<ServerLoadSummary> {
    return (await this.runServerSearching(t, index, () => undefined)).summary;
  }

  /** One server: the hold filled, wallets arriving (or the search for the highest rate they may), then the blocks. */
  private async runServerSearching(t: ServerTarget, index: number, onStep: (s: StepResult) => void): Promise<{ summary: ServerLoadSummary; search?: FindMaxResult; heldSearch?: HeldSearchResult }> {
    const serverId = this.serverIds.get(t.name)!;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const held: HeldWallet[] = [];
    const empty = (): NotificationTally => ({ expected: 0, ok: 0, missing: 0, duplicate: 0, p50Ms: null, p99Ms: null, maxMs: null });
    this.watched.set(t.name, { held, wallets: { held: 0, wanted: this.o.hold, blocks: 0, headers: empty(), scripthash: empty() } });
    const rehold = (this.rehold = new Rehold(this.connection(t), this.o.workload, Date.now(), this.o.holdConcurrency));
    if (this.stopping) rehold.close();
    // The server's segments number their seconds on from each other's, as one run's.
    let indexBase = 0;
    // The segments that synced wallets (fills, arrivals): whether it stopped answering is judged over them all.
    const syncRuns: ServerResult[] = [];
    const segment = async (s: Segment) => {
      const r = await this.runner.runServer(t, index, { ...s, indexBase });
      indexBase += r.intervals;
      return r;
    };
    try {
      const rssBefore = (await this.o.rssOf?.(t.name)) ?? null;
      const fill = await this.fillHold(t, serverId, held, rehold, segment, this.o.hold);
      if (fill.synced) syncRuns.push(fill.synced);
      // What every fill took: the first, and those a held search adds.
      const fills = { failed: fill.failed, failures: { ...fill.failures }, seconds: fill.seconds };
      const filled = async (want: number) => {
        const more = await this.fillHold(t, serverId, held, rehold, segment, want);
        fills.failed += more.failed;
        for (const [k, n] of Object.entries(more.failures)) fills.failures[k] = (fills.failures[k] ?? 0) + n;
        fills.seconds += more.seconds;
        if (more.synced) syncRuns.push(more.synced);
      };
      // Memory per held wallet is of the first fill's: a held search adds wallets later.
      const heldFirst = held.length;
      const rssAfter = heldFirst > 0 ? ((await this.o.rssOf?.(t.name)) ?? null) : null;
      let arrivals: ServerLoadSummary['arrivals'] = null;
      let abuse: AbuseSummary | undefined;
      let search: FindMaxResult | undefined;
      let searchArrivals: Record<string, number> | undefined;
      if (this.o.search && !this.stopping) {
        const { found, last, runs, nextIndex } = await findMaxOnServer(this.runner, t, index, this.o.search, onStep, { indexBase });
        indexBase = nextIndex;
        search = found;
        // A stop before the first step leaves no step to summarise.
        arrivals = found.steps.length ? arrivalsOf(summarise(last)) : null;
        if (runs.length > 0) searchArrivals = summarise(asOneRun(runs)).outcomes;
        syncRuns.push(...runs);
      } else if (this.arrivalModel && !this.stopping) {
        // Built before the arrivals start: their phases time the server, not our own JSON.
        const payload = await this.o.abuse?.spec.profile.prepare?.(this.o.abuse.spec.params, () => this.stopping);
        // A stop while the payload was built ends here, as one before it would have: no abuse starts.
        if (!this.stopping) {
          let arrivalsFailed = false;
          const abusing = this.o.abuse ? this.abuse(t, serverId, held, payload, () => arrivalsFailed) : undefined;
          // Awaited only after the arrivals: a failure meanwhile must wait here, not go unhandled (which
          // ends the process and leaves the run 'running'); the await below throws it.
          abusing?.catch(() => undefined);
          try {
            const arrived = await segment({});
            syncRuns.push(arrived);
            arrivals = arrivalsOf(summarise(arrived));
          } catch (err) {
            // The abuse ends with the arrivals it ran beside, before the run fails: never on its own after it.
            arrivalsFailed = true;
            await abusing?.catch(() => undefined);
            throw err;
          }
          // Judged once the arrivals' segment has ended: every arrival, after the abuse too, is in.
          const judge = abusing ? await abusing : undefined;
          abuse = judge ? await judge() : undefined;
        }
      }
      let notify: NotifyStats | null = null;
      let heldSearch: HeldSearch | undefined;
      const blocks = async () => {
        let judged: Awaited<ReturnType<WalletLoad['notify']>> | undefined;
        await segment({ work: async () => void (judged = await this.notify(t.name, serverId, held)) });
        return judged!;
      };
      if (this.o.notifySearch && !this.stopping) {
        heldSearch = await this.searchHeld(t, held, filled, blocks);
        notify = heldSearch.last;
      } else if (this.o.notify && (held.length > 0 || this.o.rendezvous) && !this.stopping) {
        // A shard takes every block with the others even if it holds nothing: they wait for it.
        notify = (await blocks()).stats;
      }
      rehold.close();
      const summary: ServerLoadSummary = {
        server: t.name,
        held: held.length,
        holdFailed: fills.failed,
        holdFailures: fills.failures,
        holdSeconds: fills.seconds,
        stoppedAnswering: stoppedAnsweringOver(syncRuns),
        // Only when every sync held: a server that refused or dropped connections may be going down.
        rssPerHeldKiB: rssBefore !== null && rssAfter !== null && heldFirst > 0 && fill.failed === 0 ? (rssAfter - rssBefore) / heldFirst / 1024 : null,
        arrivals,
        ...(searchArrivals ? { searchArrivals } : {}),
        notify,
        reconnects: held.length > 0 ? rehold.summary() : null,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        ...(abuse ? { abuse } : {}),
      };
      return { summary, search, heldSearch: heldSearch?.found };
    } finally {
      rehold.close();
      this.rehold = undefined;
      loop.disable();
      for (const h of held) h.session.close();
    }
  }

  private connection(t: ServerTarget): ClientOptions {
    return { ...this.o.connection, host: t.host, port: t.port, tls: t.tls, websocket: t.websocket };
  }

  /**
   * --abuse on `t`, begun `atMs` after its arrivals (which start now) and run for `forMs`; the
   * collateral is judged by the function it gives back, called once the arrivals have ended. With
   * --notify and wallets held, a block is mined in the middle of each phase while the wallets
   * arrive, so a server that stops notifying during the abuse shows it.
   */
  private async abuse(t: ServerTarget, serverId: number, held: HeldWallet[], payload: string[] | undefined, arrivalsFailed: () => boolean): Promise<(() => Promise<AbuseSummary>) | undefined> {
    const a = this.o.abuse!;
    const units: OrdinaryUnit[] = [];
    this.ordinary.set(t.name, units);
    const zeroMs = Date.now();
    const over = () => this.stopping || arrivalsFailed();
    const blocks = this.phaseBlocksWhy(held) ? Promise.resolve([]) : this.blocksInPhases(t, serverId, held, zeroMs, over);
    // Awaited only when the collateral is judged, and never after a stop: a failed mining call
    // meanwhile must not be an unhandled rejection (the judge's await throws it).
    blocks.catch(() => undefined);
    await this.sleepUntil(zeroMs + a.atMs, over);
    if (over()) return undefined;
    const startMs = Date.now();
    this.o.log(`${t.name}: abuse ${a.spec.text} for ${a.forMs / 1000} s`);
    const scripthashes = this.o.wallets.flatMap((w) => [...w.chains.receive, ...w.chains.change].map((s) => s.scripthash));
    const tally = await a.spec.profile.run({ target: t, params: a.spec.params, untilMs: startMs + a.forMs, stopped: over, proofs: [], scripthashes, payload });
    const endMs = Date.now();
    this.o.log(`${t.name}: abuse over (${tally.connections} connections, ${tally.requestsSent} requests, ${tally.replies} replies, ${tally.closedByServer} closed by the server, ${tally.refused} refused)`);
    return async () => {
      const window: AbuseWindow = { fromMs: zeroMs, startMs, endMs, toMs: Date.now() };
      const why = this.phaseBlocksWhy(held);
      const mined = await blocks;
      return {
        profile: a.spec.profile.name,
        spec: a.spec.text,
        params: a.spec.params,
        startS: (startMs - zeroMs) / 1000,
        endS: (endMs - zeroMs) / 1000,
        tally,
        collateral: collateralOf(units, { startMs, endMs }),
        window,
        notifications: why ? null : notificationsByPhase(mined, window),
        ...(why ? { notificationsWhy: why } : {}),
      };
    };
  }

  /** Why no block is mined in the abuse's phases, or undefined when they are. */
  private phaseBlocksWhy(held: HeldWallet[]): string | undefined {
    if (!this.o.notify) return 'no blocks mined (--notify not given)';
    if (held.length === 0) return 'no wallets held to notify';
    if (this.o.notify.source.naturalWaitMs !== undefined) return 'blocks cannot be mined on request here (natural blocks)';
    return undefined;
  }

  private async sleepUntil(ms: number, over: () => boolean): Promise<void> {
    while (!over() && Date.now() < ms) await new Promise((r) => setTimeout(r, Math.min(200, ms - Date.now())));
  }

  /** One block in the middle of each phase as planned (headers only: no payment), each with when it was asked for. */
  private async blocksInPhases(t: ServerTarget, serverId: number, held: HeldWallet[], zeroMs: number, over: () => boolean): Promise<PhaseBlock[]> {
    const { atMs, forMs } = this.o.abuse!;
    const middles = [atMs / 2, atMs + forMs / 2, atMs + forMs + (this.o.durationMs - atMs - forMs) / 2];
    const mined: PhaseBlock[] = [];
    for (const middle of middles) {
      await this.sleepUntil(zeroMs + middle, over);
      if (over()) break;
      const askedMs = Date.now();
      const { stats, headersMs } = await this.notify(t.name, serverId, held, { blocks: 1, payWallets: 0 });
      if (stats.blocks === 0) continue;
      mined.push({ askedMs, expected: stats.headers.expected, ok: stats.headers.ok, missing: stats.headers.missing, latenciesMs: headersMs });
    }
    return mined;
  }

  /** Arriving wallets on `t`, each timed from its intended arrival, its row stored with when it was due and how late it started. */
  private arriving(t: ServerTarget): UnitSource {
    const serverId = this.serverIds.get(t.name)!;
    return walletSyncUnits({
      name: 'sync' satisfies WalletUnit,
      units: 'arrivals',
      workload: this.o.workload,
      wallets: this.o.wallets,
      connection: this.connection(t),
      ended: ({ result, intendedMs, lagMs }) => {
        this.synced.record({ serverId, result, arrival: { intendedMs, lagMs } });
        const tookMs = Number(result.durationNs) / 1e6;
        this.ordinary.get(t.name)?.push({ dueMs: Date.now() - tookMs - lagMs, latencyMs: lagMs + tookMs, status: result.status });
        return isAnswered(result.status);
      },
    });
  }

  /** Syncs wallets, cycling through the file, until `hold` of them are held (or too many failed): the hold executor. */
  private async fillHold(t: ServerTarget, serverId: number, held: HeldWallet[], rehold: Rehold, segment: (s: Segment) => Promise<ServerResult>, want: number) {
    if (want <= held.length || this.stopping) return { synced: null, failed: 0, failures: {}, seconds: 0 };
    this.watched.get(t.name)!.wallets.wanted = want;
    const started = Date.now();
    let lastLog = Date.now();
    let failed = 0;
    const failures: Record<string, number> = {};
    const units = walletSyncUnits({
      name: 'hold-sync' satisfies WalletUnit,
      units: 'hold syncs',
      workload: this.o.workload,
      wallets: this.o.wallets,
      connection: this.connection(t),
      hold: true,
      ended: ({ result: r, connection: conn }) => {
        this.synced.record({ serverId, result: r });
        // Stopped meanwhile, or a sync that kept no session (it failed): nothing to hold.
        const keep = r.session !== undefined && !this.stopping && held.length < want;
        if (keep) {
          r.subscribed!.forEach((sh) => conn!.subscribed.add(sh));
          conn!.heard.length = 0; // what came during the sync is not a block's
          held.push({ ...conn!, session: r.session!, wallet: r.wallet });
          rehold.watch(held[held.length - 1]);
        } else r.session?.close();
        // A sync the stop kept from being held did not fail.
        if (!keep && !this.stopping) {
          failed++;
          failures[r.status] = (failures[r.status] ?? 0) + 1;
        }
        if (Date.now() - lastLog > 2000) {
          lastLog = Date.now();
          this.o.log(`${t.name}: ${held.length}/${want} wallets held (${failed} syncs failed)`);
        }
        return keep;
      },
    });
    const result = await segment({ model: { kind: 'hold', sessions: want - held.length, concurrency: this.o.holdConcurrency }, units: () => units });
    this.o.log(`${t.name}: ${held.length} wallets held in ${((Date.now() - started) / 1000).toFixed(1)} s (${failed} syncs failed)`);
    return { synced: result, failed, failures, seconds: (Date.now() - started) / 1000 };
  }

  /**
   * --slo-notify: more and more wallets held (from --hold, each step --step-factor times the last,
   * up to --max-hold), a block mined at each, until the held connections' headers notifications
   * miss the SLO, one goes missing, or the wallets can no longer be held: the most held wallets a
   * server tells of a block in time.
   */
  private async searchHeld(t: ServerTarget, held: HeldWallet[], filled: (want: number) => Promise<void>, blocks: () => Promise<{ stats: NotifyStats; headersMs: number[] }>): Promise<HeldSearch> {
    const o = this.o.notifySearch!;
    const steps: HeldStep[] = [];
    let last: NotifyStats | null = null;
    let limitedBy: HeldSearchResult['limitedBy'] = 'max-hold';
    for (let want = Math.max(1, held.length, this.o.hold); !this.stopping; want = Math.min(o.maxHold, Math.ceil(want * o.factor))) {
      await filled(want);
      if (this.stopping) break;
      if (held.length < want) {
        steps.push({ step: steps.length, held: held.length, wanted: want, blocks: 0, p50Ms: null, sloValueMs: null, missing: 0, passed: false, why: `held only ${held.length} of ${want} wallets` });
        limitedBy = 'hold';
        break;
      }
      const judged = await blocks();
      last = judged.stats;
      if (this.stopping && last.blocks === 0) break;
      const missing = last.headers.missing;
      const sloValueMs = percentile(judged.headersMs, o.slo.percentile / 100);
      const reasons: string[] = [];
      if (last.blocks === 0) reasons.push('no block came');
      if (missing > 0) reasons.push(`${missing} headers notifications missing`);
      if (sloValueMs === null || sloValueMs > o.slo.thresholdMs) reasons.push(`p${o.slo.percentile} ${sloValueMs?.toFixed(0) ?? '-'} ms > ${o.slo.thresholdMs} ms`);
      const step: HeldStep = { step: steps.length, held: held.length, wanted: want, blocks: last.blocks, p50Ms: last.headers.p50Ms, sloValueMs, missing, passed: reasons.length === 0, why: reasons.join('; ') || 'within the SLO' };
      steps.push(step);
      this.o.log(`${t.name} held step ${step.step}: ${step.held} held, headers p${o.slo.percentile} ${sloValueMs?.toFixed(0) ?? '-'} ms, ${missing} missing → ${step.passed ? 'pass' : `FAIL (${step.why})`}`);
      if (!step.passed) {
        limitedBy = 'server';
        break;
      }
      if (want >= o.maxHold) break;
    }
    if (this.stopping) limitedBy = 'interrupted';
    const passed = steps.filter((s) => s.passed);
    const maxHeld = passed.length ? passed[passed.length - 1].held : null;
    const failed = steps.find((s) => !s.passed);
    const statement =
      limitedBy === 'interrupted'
        ? `${t.name}: interrupted; most held wallets told in time so far ${maxHeld ?? 'none'}`
        : limitedBy === 'max-hold'
          ? `${t.name}: every step up to --max-hold ${o.maxHold} held wallets was told of its blocks within ${o.slo.text}`
          : maxHeld === null
            ? `${t.name}: not even ${failed!.wanted} held wallets were told of a block within ${o.slo.text} (${failed!.why})`
            : `${t.name}: ${maxHeld} held wallets are told of a block within ${o.slo.text}; at ${failed!.wanted} ${failed!.why}`;
    return { found: { server: t.name, slo: o.slo, steps, maxHeld, limitedBy, statement }, last };
  }

  /** `--blocks` blocks, each after paying `--pay-wallets` held wallets, unless `only` says otherwise. */
  private async notify(server: string, serverId: number, held: HeldWallet[], only?: { blocks: number; payWallets: number }): Promise<{ stats: NotifyStats; headersMs: number[] }> {
    const n = { ...this.o.notify!, ...only };
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const headers: number[] = [];
    const scripts: number[] = [];
    const mineCalls: number[] = [];
    const totals = { headers: { expected: 0, ok: 0, missing: 0, duplicate: 0 }, scripthash: { expected: 0, ok: 0, missing: 0, duplicate: 0 } };
    const nextUnused = new Map<string, number>();
    const stopped = () => this.stopping;
    const source = n.source;
    let blocks = 0;
    for (let b = 0; b < n.blocks && !this.stopping; b++) {
      const step = `${server} block ${b + 1}`;
      try {
        await source.ready(step);
        const payment = await source.pay(step, held, n.payWallets, n.amountSat, nextUnused);
        const paid = payment?.paid ?? new Set<string>();
        if (payment) await until(() => paymentHeard(held, paid, payment.sinceNs), n.paymentWaitMs, stopped);
        await source.paymentHeard(step);
        for (const h of held) h.heard.length = 0; // the payment's mempool notifications are not the block's
        const block = await source.block(step, held, stopped);
        if (!block) {
          if (!this.stopping) this.o.log(`no block within ${(source.naturalWaitMs ?? 0) / 1000} s; stopping the wait for blocks`);
          break;
        }
        if (block.mined) mineCalls.push(Number(block.returnedNs - block.askedNs) / 1e6);
        await until(() => allHeard(held, block.height, paid, block.askedNs), n.waitMs, stopped);
        const j = judgeBlock(held, block.height, paid, block.askedNs);
        this.store.addNotifications(this.runId, j.rows.map((r) => ({ ...r, serverId })));
        for (const r of j.rows) if (r.status === 'ok') (r.kind === 'headers' ? headers : scripts).push(Number(r.latencyNs) / 1e6);
        for (const k of ['headers', 'scripthash'] as const) for (const f of ['expected', 'ok', 'missing', 'duplicate'] as const) totals[k][f] += j[k][f];
        blocks++;
        const watched = this.watched.get(server)!.wallets;
        watched.blocks = blocks;
        const [h, sc] = [latencyLine(headers), latencyLine(scripts)];
        watched.headers = { ...totals.headers, p50Ms: h.p50Ms, p99Ms: h.p99Ms, maxMs: h.maxMs };
        watched.scripthash = { ...totals.scripthash, p50Ms: sc.p50Ms, p99Ms: sc.p99Ms, maxMs: sc.maxMs };
        const all = await source.judged(step, { headers: j.headers, scripthash: j.scripthash });
        const sum = (k: 'headers' | 'scripthash', f: 'expected' | 'ok' | 'missing') => all.reduce((x, figures) => x + figures[k][f], 0);
        const shards = all.length > 1 ? ` (${all.length} shards)` : '';
        this.o.log(`block ${block.height}: ${sum('headers', 'ok')}/${sum('headers', 'expected')} headers notifications, ${sum('scripthash', 'ok')}/${sum('scripthash', 'expected')} script notifications, ${sum('headers', 'missing') + sum('scripthash', 'missing')} missing${shards}`);
      } catch (err) {
        // A stop while the shards met: what was judged stands.
        if (err instanceof StepStopped) break;
        throw err;
      }
    }
    const stats: NotifyStats = {
      blocks,
      headers: { ...totals.headers, ...latencyLine(headers) },
      scripthash: { ...totals.scripthash, ...latencyLine(scripts) },
      mineCallMs: percentile(mineCalls.sort((a, b) => a - b), 0.5),
      loopDelayP99Ms: (loop.disable(), loop.percentile(99) / 1e6),
    };
    // Sorted by latencyLine: the search's percentile reads them as they are.
    return { stats, headersMs: headers };
  }
}

/** Whether `s`'s server stopped answering the run: over its whole run, or (a run stored before that was kept) its arrivals'. */
export function serverStoppedAnswering(s: ServerLoadSummary): StoppedAnswering | null {
  return s.stoppedAnswering !== undefined ? s.stoppedAnswering : (s.arrivals?.stoppedAnswering ?? null);
}

/** A server's segments that synced wallets as one run's turns (engine/merge-turns.ts): whether it stopped answering over them all. */
function stoppedAnsweringOver(runs: ServerResult[]): StoppedAnswering | null {
  return runs.length === 0 ? null : summarise(asOneRun(runs)).stoppedAnswering;
}

/** Segments of one server's wallet syncs (at least one), in time order, as one run's turns. */
function asOneRun(runs: ServerResult[]): ServerResult {
  const inOrder = [...runs].sort((a, b) => a.startedAtMs - b.startedAtMs);
  return mergeTurns(inOrder, { closed: false, words: { units: 'wallet syncs', late: 'started late' } });
}

/**
 * An arrivals segment's figures from the engine's summary (src/engine/summary.ts), in the words
 * the wallet load's summary, store and report use: every intended arrival synced, failed by
 * category (cut short included), or not started because the run stopped first.
 */
export function arrivalsOf(s: ServerSummary): NonNullable<ServerLoadSummary['arrivals']> {
  const notStarted = s.outcomes['not-sent'] ?? 0;
  const failures: Record<string, number> = {};
  for (const [k, v] of Object.entries(s.outcomes)) if (k !== 'ok' && k !== 'not-sent') failures[k] = v;
  return {
    intended: s.scheduled,
    synced: s.ok,
    failed: s.scheduled - s.ok - notStarted,
    failures,
    notStarted,
    answeredRate: s.achievedRps,
    p50Ms: s.latencyMs.p50,
    p90Ms: s.latencyMs.p90,
    p99Ms: s.latencyMs.p99,
    lagP99Ms: s.generator.lagP99Us === null ? null : s.generator.lagP99Us / 1000,
    stoppedAnswering: s.stoppedAnswering,
    generator: { bound: s.generator.bound, reasons: s.generator.reasons },
  };
}

/** Percentiles of notification latencies (ms), sorting `ms` in place (their order means nothing). */
function latencyLine(ms: number[]): { p50Ms: number | null; p90Ms: number | null; p99Ms: number | null; maxMs: number | null } {
  const line = sortedLine(ms.sort((a, b) => a - b));
  return { p50Ms: line.p50, p90Ms: line.p90, p99Ms: line.p99, maxMs: line.max };
}

