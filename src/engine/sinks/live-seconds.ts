/**
 * Seconds for the run kinds that store no intervals of their own (a bench keeps every sample, a
 * wallet bench every sync; load and wallet load have the runner's): each unit's outcome goes, as it ends, to one interval recorder per server
 * (hdr-intervals.ts), and every second of wall time closes them into interval records for the
 * outputs (src/engine/outputs/). The run's figures stay the database's; these seconds feed what
 * watches the run, and hold the same units, each once.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { IntervalRecord, LoadOutcome } from '../../core/load-types';
import type { LiveState } from '../outputs/output';
import { IntervalRecorder } from './hdr-intervals';

export interface UnitEnd {
  /** 'ok' or an error category. */
  outcome: string;
  /** From the unit's actual start to its end. */
  durationNs: number;
  /** How late it started against its schedule; absent for a plan with no schedule (bench's passes). */
  lagNs?: number;
  bytes?: number;
}

/** What the run knows of a server at a second's close, beside its units. */
export interface ServerNow {
  targetRate?: number | null;
  vus?: number | null;
  state?: LiveState;
}

export interface LiveSecondsOptions<M extends string> {
  interval(record: IntervalRecord<M>, live: LiveState): void;
  now?(server: string): ServerNow;
  /** interval() threw (an output could not write): the run is to stop; `failure` keeps the error. */
  failed?(err: unknown): void;
}

interface Watched<M extends string> {
  recorder: IntervalRecorder<M>;
  inFlight: number;
}

const SECOND_MS = 1000;

export class LiveSeconds<M extends string> {
  private readonly servers = new Map<string, Watched<M>>();
  private readonly originNs = process.hrtime.bigint();
  private readonly originMs = Date.now();
  /** The second under way, counted from the origin. */
  private index = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Closing a second takes a few loop turns: closes run one after another, in order. */
  private closing: Promise<void> = Promise.resolve();
  private stopped = false;
  /** What an output threw, if one did: no second is sent after it. */
  failure: unknown;
  private readonly loop = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly o: LiveSecondsOptions<M>) {
    this.loop.enable();
    this.schedule();
  }

  /** `server` is under way: it has a second every second from now until finish(). */
  begin(server: string): void {
    if (!this.stopped && !this.servers.has(server)) this.servers.set(server, { recorder: new IntervalRecorder<M>(server), inFlight: 0 });
  }

  /** A unit of `server` started. */
  started(server: string): void {
    const w = this.servers.get(server);
    if (w) w.inFlight++;
  }

  /** A unit of `server` ended: counted in the second under way, timed from its intended start when it had one. */
  ended(server: string, method: M, end: UnitEnd): void {
    const w = this.servers.get(server);
    if (!w) return;
    w.inFlight = Math.max(0, w.inFlight - 1);
    const endNs = this.nowNs();
    const actualNs = endNs - end.durationNs;
    if (end.lagNs === undefined) w.recorder.sentUnscheduled();
    else w.recorder.sentOne(end.lagNs / 1000);
    w.recorder.completed(method, end.outcome as LoadOutcome, actualNs - (end.lagNs ?? 0), actualNs, endNs, end.bytes ?? 0, false);
  }

  /** `server` is done: its last second, shorter than the others, closes now. */
  async finish(server: string): Promise<void> {
    const w = this.servers.get(server);
    if (!w) return;
    this.servers.delete(server);
    await this.closeSecond([[server, w]], this.index, Date.now());
  }

  /** The run is over: every server's last second closes now, and no more come. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    const last = [...this.servers];
    this.servers.clear();
    await this.closeSecond(last, this.index, Date.now());
    this.loop.disable();
  }

  private nowNs(): number {
    return Number(process.hrtime.bigint() - this.originNs);
  }

  /** Wakes at each second's end on the origin's grid, so seconds do not drift with the timer's lateness. */
  private schedule(): void {
    const due = this.originMs + (this.index + 1) * SECOND_MS;
    this.timer = setTimeout(() => {
      const closed = this.index++;
      void this.closeSecond([...this.servers], closed, due);
      if (!this.stopped) this.schedule();
    }, Math.max(0, due - Date.now()));
    // What holds the process is the run; a second's close must not hold it past its end.
    this.timer.unref();
  }

  private closeSecond(servers: Array<[string, Watched<M>]>, index: number, endMs: number): Promise<void> {
    const startMs = this.originMs + index * SECOND_MS;
    const loopDelayP99Us = this.loop.count > 0 ? this.loop.percentile(99) / 1000 : 0;
    this.loop.reset();
    const close = async () => {
      if (this.failure) return;
      for (const [server, w] of servers) {
        const now = this.o.now?.(server) ?? {};
        const { record } = await w.recorder.close(index, startMs, Math.max(0, endMs - startMs), {
          targetRate: now.targetRate ?? null,
          vus: now.vus ?? null,
          inFlight: w.inFlight,
          loopDelayP99Us,
        });
        // A stop right on a second's edge: nothing to add, and a second sample at the previous one's time.
        if (record.lengthMs === 0 && record.sent === 0) continue;
        this.o.interval(record, now.state ?? {});
      }
    };
    this.closing = this.closing.then(close).catch((err: unknown) => {
      if (this.failure) return;
      this.failure = err ?? new Error('an output failed');
      this.o.failed?.(err);
    });
    return this.closing;
  }
}
