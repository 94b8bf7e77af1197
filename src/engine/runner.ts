/**
 * A load run: each server in turn gets the whole load profile for itself (servers never share the
 * generator), through its own connections. Every second of the schedule clock the interval is
 * closed, stored, shown and given to the thresholds; at the end the run's totals are summarised
 * and the run is flagged generator-bound when the generator, not the server, made part of the
 * latencies (the one check of src/core/generator-check.ts).
 * It emits events and knows nothing about terminals.
 */
import { EventEmitter } from 'node:events';
import type { DatasetLine } from '../core/dataset-line';
import type { ServerTarget } from '../servers/targets';
import { targetUrl } from '../servers/targets';
import { generatorVerdict, MATERIAL_SHARE, unitAtRisk } from '../core/generator-check';
import type { ConnectionOptions } from '../transports/transport';
import { RunClock } from './run-clock';
import { histogramAt } from '../core/percentile-line';
import { fanOut, RawSamples } from './sinks/request-sink';
import { requestUnits } from './iterations/request-units';
import { executorFor, type LoadModel } from './executors/registry';
import type { Executor } from './executors/executor';
import { IntervalRecorder, Totals } from './sinks/hdr-intervals';
import { LoopDelay, LOOP_PROBE_PERIOD_MS } from './loop-delay';
import { wakeClockStarted } from './wake-clock';
import type { UnitSource } from './unit-source';
import type { Mix } from '../core/load-types';

/** How a run paces its servers, whatever its units are. */
export interface RunnerOptions {
  servers: ServerTarget[];
  model: LoadModel;
  durationMs: number;
  shard?: { index: number; count: number };
  /** Epoch ms to start the schedule at: the rendezvous of a test's shards. */
  startAtMs?: number;
  /**
   * A coordinated test (--coordinator): resolves to the epoch ms at which every shard starts this
   * segment of a server's run (`meeting`: the server's name for its first segment, then
   * `NAME (segment K)`), once all of them are ready for it.
   */
  rendezvous?: (meeting: string) => Promise<number>;
  /** Keep every request's outcome as a row too (--samples). */
  samples?: boolean;
}

/** A request load's options: its requests' dataset, mix and seed, and the connections they go through. */
export interface LoadOptions extends RunnerOptions, ConnectionOptions {
  lines: DatasetLine[];
  mix: Mix;
  seed: string;
  samples: boolean;
}

/** A server's units, as a run makes them unless a segment says otherwise; `closed` for a closed model. */
export type UnitsOf = (target: ServerTarget, serverIndex: number, closed: boolean) => UnitSource;

/** What the generator itself did: if it fell behind, latencies are partly its own. */
export interface GeneratorCheck {
  lagP99Us: number | null;
  lagMaxUs: number | null;
  loopDelayP99Ms: number;
  cpuUtilisation: number;
  /** Units whose own delay was material to their latency (core/generator-check.ts), of `judged`: the share the verdict is taken on, said even when it is 1 % or less. */
  atRisk: number;
  judged: number;
  bound: boolean;
  reasons: string[];
}

export interface ServerResult {
  server: string;
  url: string;
  /** As the server announced itself; null when its units opened nothing up front (wallet syncs). */
  software: string | null;
  protocol: string | null;
  durationMs: number;
  /** Epoch ms of the schedule clock's 0 (the totals' times are ns after it). */
  startedAtMs: number;
  totals: Totals<string>;
  generator: GeneratorCheck;
  refused: number;
  firstRefusedAtMs: number | null;
  /** Onset of each error category: when it was first seen, ms after the server's start. */
  onsetMs: Record<string, number>;
  /** Intervals this segment recorded (the next segment numbers its own from here on). */
  intervals: number;
  lateReplies: number;
  status: 'completed' | 'interrupted' | 'aborted';
}

/** How long units still under way at a stop may take to end before they are cut short: a stop takes at most 2 s. */
const STOP_GRACE_MS = 1500;
/** The last stretch before a rendezvous waited in loop turns, not on a timer: longer spins starve each other when shards share cores (bench/cluster-skew.ts). */
const START_SPIN_MS = 1;
/** How long after its setup an open model's schedule starts: more than the driver queues ahead (QUEUE_AHEAD_NS) and the setup's last steps. */
const SCHEDULE_LEAD_NS = 2_000_000n;
/** The longest a run waits for the wake clock's worker (tens of ms here) before its schedule starts without it. */
const WAKE_CLOCK_START_CAP_MS = 1000;

export class LoadRunner extends EventEmitter {
  private stopRequested = false;
  private abortReason: string | null = null;
  private stopCurrent: (() => void) | undefined;
  /** Segments started per server, for each one's meeting with the other shards. */
  private readonly segmentsRun = new Map<string, number>();
  private scheduleMs = 0;

  private readonly unitsOf: UnitsOf;

  /** A request load (the requests of `opts`), or a run whose units are `unitsOf`'s. */
  constructor(opts: LoadOptions);
  constructor(opts: RunnerOptions, unitsOf: UnitsOf);
  constructor(
    private readonly opts: RunnerOptions,
    unitsOf?: UnitsOf,
  ) {
    super();
    const requests = opts as LoadOptions;
    this.unitsOf = unitsOf ?? ((target, serverIndex, closed) => requestUnits(target, { ...requests, seed: `${requests.seed}:${serverIndex}`, closed }));
  }

  /**
   * A server's units as this run makes them, for a caller that keeps them open across segments (an
   * interleaved run's turns, interleave.ts): the same `serverIndex` draws the same request sequence.
   */
  unitsFor(target: ServerTarget, serverIndex: number): UnitSource {
    return this.unitsOf(target, serverIndex, this.closed);
  }

  /** Whether the run's model is closed: each unit waits for its user's last to end. */
  get closed(): boolean {
    return executorFor(this.opts.model).closed;
  }

  /** Stops sending now; what was measured is kept. */
  stop(): void {
    this.stopRequested = true;
    this.stopCurrent?.();
  }

  /** A threshold with abortOnFail failed: stop, and mark the run aborted. */
  abort(reason: string): void {
    this.abortReason ??= reason;
    this.stop();
  }

  get aborted(): string | null {
    return this.abortReason;
  }

  /**
   * One server's whole load profile; connects first (an unreachable server throws before any load).
   * A `segment` runs another model for a while instead (one step of --find-max), numbering its
   * intervals from `indexBase` so that the steps of a search follow each other in one run.
   */
  async runServer(target: ServerTarget, serverIndex: number, segment: Segment = {}): Promise<ServerResult> {
    const model = segment.model ?? this.opts.model;
    const opts = { ...this.opts, model: segment.window ? (executorFor(model).window?.(model, segment.window) ?? model) : model, durationMs: segment.durationMs ?? this.opts.durationMs };
    const step = segment.step ?? null;
    const executor: Paced = segment.work ? whileWorking(segment.work) : executorFor(opts.model);
    const units = segment.work ? NO_UNITS : segment.units ? segment.units() : this.unitsOf(target, serverIndex, executor.closed);
    // A stop while connecting (a server that never answers its handshake) cuts the connects short.
    this.stopCurrent = () => units.close();
    try {
      if (this.stopRequested) throw new LoadStopped();
      await units.open();
    } catch (err) {
      if (this.stopRequested) throw new LoadStopped();
      throw err;
    }
    // The open model's wake clock is up before its schedule starts, not during its first sends.
    if (!executor.closed) await this.unlessStopped(wakeClockStarted(WAKE_CLOCK_START_CAP_MS), units);
    if (this.stopRequested) {
      units.close();
      throw new LoadStopped();
    }
    const info = units.server;
    const recorder = new IntervalRecorder<string>(target.name, 1e9); // its seconds are the run clock's (the ticker's below)
    const durationMs = executor.lengthMs(opts.model, opts.durationMs);
    // Shards of one test share the schedule clock: each starts on a whole second of the epoch, so
    // their intervals line up second for second when merged.
    // `startAtMs` is the shards' rendezvous (--start-at); without it, the next whole second.
    // A coordinated test's start comes from its coordinator, once every shard is ready.
    // Every shard runs a server's segments in the same order: the K-th of each meets the others' K-th.
    const segmentNo = this.segmentsRun.get(target.name) ?? 0;
    this.segmentsRun.set(target.name, segmentNo + 1);
    const meeting = segmentNo === 0 ? target.name : `${target.name} (segment ${segmentNo + 1})`;
    if (opts.rendezvous) {
      let at: number;
      try {
        at = await this.unlessStopped(opts.rendezvous(meeting), units);
      } catch (err) {
        units.close();
        throw err;
      }
      await this.untilEpochMs(at);
      if (this.stopRequested) {
        units.close();
        throw new LoadStopped();
      }
    } else if (opts.shard || opts.startAtMs !== undefined) {
      const at = opts.startAtMs !== undefined && opts.startAtMs > Date.now() ? opts.startAtMs : Date.now() + 1000 - (Date.now() % 1000);
      await this.untilEpochMs(at);
    }
    // The shards' start skew is measured from this instant (sub-millisecond, on the epoch clock).
    this.emit('schedule-start', { server: meeting, epochMs: performance.timeOrigin + performance.now() });
    // Probed while units are in flight, not all the time (src/engine/loop-delay.ts).
    const loop = new LoopDelay();
    const cpu0 = process.cpuUsage();
    // An open model's clock starts a moment after this setup, so that its first requests are sent
    // as every later one is (built ahead of their time, written at it: arrival-driver.ts), not at
    // the end of the setup: each turn of an interleaved run at 50/s began with a send 0.07–0.31 ms
    // late (1 ms in the run's first), beside replies of 0.7–1.4 ms.
    const leadNs = executor.closed ? 0n : SCHEDULE_LEAD_NS;
    const t0 = process.hrtime.bigint() + leadNs;
    const startMs = Date.now() + Number(leadNs) / 1e6;
    const onsetMs: Record<string, number> = {};
    const samples = new RawSamples();
    const iteration = units.iteration(fanOut(opts.samples ? [recorder, loop, samples] : [recorder, loop]), new RunClock(t0), () => this.stopCurrent?.());
    const pacer = executor.create(iteration, opts.model, durationMs, opts.shard);
    this.emit('server-start', { server: target.name, url: targetUrl(target), software: info?.software ?? null, durationMs });

    // The schedule clock's seconds: interval i covers [t0 + i s, t0 + (i+1) s). Closes run one
    // after another (each encodes in small steps between sends), and are emitted in order.
    const indexBase = segment.indexBase ?? 0;
    let index = 0;
    let ticker: NodeJS.Timeout | undefined;
    let closing: Promise<void> = Promise.resolve();
    let failed: unknown;
    const closeInterval = (lengthMs: number, last = false) => {
      const i = index++;
      const tMs = i * 1000;
      const context = {
        // A shard sends every N-th request of the schedule: its own target is 1/N of the rate.
        targetRate: scaled(executor.targetRateAt(opts.model, tMs + lengthMs / 2), opts.shard),
        vus: pacer.vusAt(iteration.clock.now() / 1e6),
        inFlight: units.inFlight,
        loopDelayP99Us: loop.closeSecond(),
      };
      closing = closing.then(async () => {
        if (failed) return;
        const { record, live } = await recorder.close(indexBase + i, startMs + tMs, lengthMs, context, last);
        for (const c of record.cells) if (c.outcome !== 'ok' && c.outcome !== 'dropped' && onsetMs[c.outcome] === undefined) onsetMs[c.outcome] = tMs;
        // A segment of work alone (a wallet load's blocks) sends its last second however short: what
        // the work did by its end (the blocks judged) is that second's news for the outputs.
        if (record.sent + record.dropped + record.cells.length > 0 || lengthMs >= 1000 || (last && segment.work)) {
          this.emit('interval', { server: target.name, record, live, samples: samples.rows.splice(0), step });
        }
      }).catch((err) => {
        // E.g. the database refused an interval: stop, and fail the run with that error below.
        failed ??= err;
        this.stop();
      });
    };
    const scheduleTick = () => {
      const dueNs = t0 + BigInt(index + 1) * 1_000_000_000n;
      const waitMs = Math.max(0, Number(dueNs - process.hrtime.bigint()) / 1e6);
      ticker = setTimeout(() => {
        closeInterval(1000);
        scheduleTick();
      }, waitMs);
    };
    scheduleTick();

    let stoppedAtMs: number | null = null;
    this.stopCurrent = () => {
      stoppedAtMs ??= Date.now();
      pacer.stop();
    };
    try {
      if (!this.stopRequested) await pacer.run();
      // Every unit of the schedule ends as an outcome: those a stop kept from going out too.
      if (pacer.unsent) recorder.notSent(pacer.unsent());
      // A schedule that ran to its end lasted its whole length (its last request is due before
      // it); iterations and a stopped run last as long as they took.
      const elapsedMs = Math.min(durationMs, Number(process.hrtime.bigint() - t0) / 1e6);
      const scheduleEndMs = this.stopRequested || executor.endsWhenDone ? elapsedMs : durationMs;
      // Let what is in flight answer (or time out) before the last interval is closed; a stop
      // asked for meanwhile shortens the wait to its grace.
      const naturalEnd = Date.now() + units.drainMs;
      const deadline = () => Math.min(naturalEnd, (stoppedAtMs ?? Infinity) + STOP_GRACE_MS);
      while (units.inFlight > 0 && Date.now() < deadline()) await new Promise((r) => setTimeout(r, 20));
      if (ticker) clearTimeout(ticker);
      const partialMs = Math.max(1, Math.round(Number(process.hrtime.bigint() - t0) / 1e6 - index * 1000));
      // From here on nothing is recorded: what is still in flight is cut short by our own close,
      // not by the server, and intervals and totals must hold the same requests.
      recorder.freeze(iteration.clock.now());
      closeInterval(Math.min(1000, partialMs), true);
      await closing;
      if (failed) throw failed;
      if (units.failure) throw units.failure;
      this.scheduleMs = stoppedAtMs !== null ? Math.min(scheduleEndMs, stoppedAtMs - startMs) : scheduleEndMs;
    } finally {
      if (ticker) clearTimeout(ticker);
      recorder.freeze();
      units.close();
      loop.stop();
    }
    const cpu = process.cpuUsage(cpu0);
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const t = recorder.totals;
    const lagP99 = t.lag.totalCount > 0 ? t.lag.getValueAtPercentile(99) : null;
    const loopP99Ms = loop.p99Ms;
    // Judged per request against its own latency (src/core/generator-check.ts); lag and loop delay are context.
    const verdict = generatorVerdict(t.generator.atRisk, t.generator.units, units.words.units, units.words.late);
    const loopReason = executor.closed ? loopDelayReason(loopP99Ms, histogramAt(t.latency, 50, 1000)) : null;
    if (loopReason) {
      verdict.bound = true;
      verdict.reasons.push(loopReason);
    }
    return {
      server: target.name,
      url: targetUrl(target),
      software: info?.software ?? null,
      protocol: info?.protocol ?? null,
      // The achieved rate is over the schedule's length, not the drain after it.
      durationMs: Math.max(1, this.scheduleMs),
      startedAtMs: startMs,
      totals: t,
      generator: {
        lagP99Us: lagP99,
        lagMaxUs: t.lag.totalCount > 0 ? t.lag.maxValue : null,
        loopDelayP99Ms: Math.round(loopP99Ms * 1000) / 1000,
        cpuUtilisation: wallMs > 0 ? Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 1000) / 1000 : 0,
        atRisk: t.generator.atRisk,
        judged: t.generator.units,
        bound: verdict.bound,
        reasons: verdict.reasons,
      },
      refused: units.refused,
      firstRefusedAtMs: units.firstRefusedAtMs === null ? null : units.firstRefusedAtMs - startMs,
      onsetMs,
      intervals: index,
      lateReplies: units.lateReplies(),
      status: this.abortReason ? 'aborted' : this.stopRequested ? 'interrupted' : 'completed',
    };
  }

  /**
   * Waits until the epoch clock reads `atMs`: a timer to just before, then loop turns for the last
   * stretch, since a timer alone fires up to a few ms late and the shards' starts should agree to
   * well under that. A stop ends the wait.
   */
  private async untilEpochMs(atMs: number): Promise<void> {
    const now = () => performance.timeOrigin + performance.now();
    while (!this.stopRequested && atMs - now() > START_SPIN_MS) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(200, atMs - now() - START_SPIN_MS));
        this.stopCurrent = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    while (!this.stopRequested && now() < atMs) await new Promise((r) => setImmediate(r));
  }

  /** `p`, unless a stop comes first (then LoadStopped, and what the server's units opened closed). */
  private unlessStopped<T>(p: Promise<T>, units: { close(): void }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.stopCurrent = () => {
        units.close();
        reject(new LoadStopped());
      };
      p.then(resolve, reject);
    });
  }

  get stopped(): boolean {
    return this.stopRequested;
  }
}

/** A stop asked for while a server's connections were being opened: nothing was sent to it. */
export class LoadStopped extends Error {
  constructor() {
    super('stopped while connecting; nothing was sent');
  }
}

/**
 * A closed model sends each request the moment its user is free, so it never goes out late: a busy
 * generator shows instead as replies waiting on our loop, which no request measures. The loop's
 * delay p99 is judged against the median latency it would sit inside, by the same rule as a unit's
 * own delay. The monitor times the loop with 1 ms timers: its readings include that period, and
 * below it it can tell nothing (an idle loop reads p99 ≈ 1.1 ms). Null when the loop is not at risk.
 */
export function loopDelayReason(loopP99Ms: number, latencyP50Ms: number | null): string | null {
  // The probe times the loop with 1 ms timers: its readings include that period, and below it it
  // can tell nothing (a loop never late reads p99 ≈ 1.1 ms).
  const loopExcessMs = loopP99Ms - LOOP_PROBE_PERIOD_MS;
  if (latencyP50Ms === null || loopExcessMs <= LOOP_PROBE_PERIOD_MS || !unitAtRisk(loopExcessMs, latencyP50Ms)) return null;
  return (
    `event-loop delay p99 ${loopP99Ms.toFixed(2)} ms (${loopExcessMs.toFixed(2)} ms beyond the monitor's 1 ms period) is over ${MATERIAL_SHARE * 100}% of the median latency ${latencyP50Ms.toFixed(2)} ms: ` +
    `in a closed model replies may have waited that long on the generator, so p99 and above may be partly its own time`
  );
}

export interface Segment {
  model?: LoadModel;
  durationMs?: number;
  indexBase?: number;
  step?: number | null;
  /** The segment is the index-th window of the run's schedule (an interleaved run's round): Executor.window. */
  window?: number;
  /** What the segment's units are: the run's requests unless told (e.g. a wallet load's syncs). */
  units?: () => UnitSource;
  /**
   * No units at all: the segment lasts while `work` runs (a wallet load's blocks and the
   * notifications they bring), its seconds closed like any other's for what watches the run.
   */
  work?: () => Promise<void>;
}

/** What the runner asks of how a segment is paced: an executor, or work of the segment's own. */
type Paced = Pick<Executor<LoadModel>, 'closed' | 'endsWhenDone' | 'lengthMs' | 'targetRateAt' | 'create'>;

/** A segment that is `work` alone: it ends when the work does; a stop is the work's own to heed. */
function whileWorking(work: () => Promise<void>): Paced {
  return {
    closed: false,
    endsWhenDone: true,
    lengthMs: () => Infinity,
    targetRateAt: () => null,
    create: () => ({ run: work, stop: () => undefined, vusAt: () => null }),
  };
}

/** A segment of no units opens, sends and cuts short nothing. */
const NO_UNITS: UnitSource = {
  open: async () => undefined,
  server: null,
  iteration: (_sink, clock) => ({ clock, batch: () => ({ size: 0, oldestNs: Infinity, add: () => false, flush: () => undefined }), onProgress: () => undefined }),
  inFlight: 0,
  drainMs: 0,
  close: () => undefined,
  refused: 0,
  firstRefusedAtMs: null,
  lateReplies: () => 0,
  failure: undefined,
  words: { units: 'units', late: 'started late' },
};

function scaled(rate: number | null, shard?: { count: number }): number | null {
  return rate === null || !shard ? rate : rate / shard.count;
}
