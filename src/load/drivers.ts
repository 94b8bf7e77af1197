/**
 * The two ways load is applied to one server, named as k6 names them:
 *
 *   open model (constant or ramping arrival rate): requests go out on a schedule fixed in advance
 *   and never wait for replies; a request finding every connection's pipeline full is counted as
 *   dropped, never silently delayed; its latency is measured from its intended send time.
 *   closed model (virtual users): N clients each with one request in flight, then a think time.
 *
 * Drivers only send and record; the runner owns the clock's intervals, the store and the console.
 */
import { toElectrumError } from '../electrum/errors';
import { answerSizeProblem } from '../servers/answer-size';
import { classify, ServerProfile } from '../servers/profiles';
import type { LoadConnections } from './connections';
import type { IntervalRecorder } from './recorder';
import type { RequestPicker, Request } from './requests';
import { arrivalOffsetsNs, vusAt } from './schedule';
import type { LoadModel } from '../core/load-types';

/** How long before a due time the timer wakes; the rest is waited in setImmediate turns. */
const SPIN_NS = 1_000_000;
/** Requests sent in one turn before yielding to I/O, so a backlog cannot starve replies. */
const MAX_PER_TURN = 2_000;

export interface RawSample {
  intendedUs: number;
  method: string;
  outcome: string;
  latencyUs: number | null;
  serviceUs: number | null;
}

export interface DriverContext {
  conns: LoadConnections;
  recorder: IntervalRecorder;
  picker: RequestPicker;
  profile: ServerProfile;
  timeoutMs: number;
  /** Called for every completed request when raw samples are kept (--samples). */
  onSample?: (s: RawSample) => void;
  /** Where the run's schedule clock starts (hrtime ns). */
  t0: bigint;
}

/** Sends one request on a connection and records its outcome; resolves when it has one. */
function send(ctx: DriverContext, req: Request, intendedNs: bigint): Promise<void> | null {
  const picked = ctx.conns.pick();
  if (!picked) {
    if (ctx.conns.allDown) {
      // No connection at all: the server is unreachable (refused, reset), an error, not our saturation.
      const now = process.hrtime.bigint();
      ctx.recorder.sentOne(Number(now - intendedNs) / 1000);
      ctx.recorder.completed(req.method, 'disconnect', intendedNs, now, now, 0);
      ctx.onSample?.({ intendedUs: Number(intendedNs - ctx.t0) / 1000, method: req.method, outcome: 'disconnect', latencyUs: Number(now - intendedNs) / 1000, serviceUs: 0 });
    } else {
      ctx.recorder.droppedOne(req.method);
      ctx.onSample?.({ intendedUs: Number(intendedNs - ctx.t0) / 1000, method: req.method, outcome: 'dropped', latencyUs: null, serviceUs: null });
    }
    return null;
  }
  const { slot, index } = picked;
  const client = slot.client!;
  const actualNs = process.hrtime.bigint();
  ctx.recorder.sentOne(Number(actualNs - intendedNs) / 1000);
  slot.inFlight++;
  return client.call(req.rpc, [req.scripthash], ctx.timeoutMs).then(
    (o) => {
      const endNs = actualNs + o.latencyNs;
      // An empty answer where the dataset has data is never a fast success (src/servers/answer-size.ts).
      const outcome = answerSizeProblem(ctx.profile, req.method, o.result, req.line)?.category ?? 'ok';
      ctx.recorder.completed(req.method, outcome, intendedNs, actualNs, endNs, o.responseBytes);
      ctx.onSample?.({ intendedUs: Number(intendedNs - ctx.t0) / 1000, method: req.method, outcome, latencyUs: Number(endNs - intendedNs) / 1000, serviceUs: Number(o.latencyNs) / 1000 });
      slot.inFlight--;
    },
    (err) => {
      const endNs = process.hrtime.bigint();
      const outcome = classify(ctx.profile, toElectrumError(err)).category;
      ctx.recorder.completed(req.method, outcome, intendedNs, actualNs, endNs, 0);
      ctx.onSample?.({ intendedUs: Number(intendedNs - ctx.t0) / 1000, method: req.method, outcome, latencyUs: Number(endNs - intendedNs) / 1000, serviceUs: Number(endNs - actualNs) / 1000 });
      slot.inFlight--;
      ctx.conns.replaceIfUnusable(index);
    },
  );
}

/**
 * Open model: follows the arrival schedule until it ends or stop() is called. Resolves once the
 * schedule is done (in-flight requests are the runner's to wait for).
 */
export class OpenModelDriver {
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private finish: (() => void) | undefined;

  constructor(
    private readonly ctx: DriverContext,
    private readonly model: LoadModel,
    private readonly durationMs: number,
    private readonly shard?: { index: number; count: number },
  ) {}

  run(): Promise<void> {
    const offsets = arrivalOffsetsNs(this.model, this.durationMs, this.shard);
    let next = offsets.next();
    const { ctx } = this;
    return new Promise<void>((resolve) => {
      this.finish = resolve;
      const turn = () => {
        this.timer = undefined;
        this.immediate = undefined;
        if (this.stopped) return resolve();
        let now = Number(process.hrtime.bigint() - ctx.t0);
        let n = 0;
        while (!next.done && next.value <= now && n < MAX_PER_TURN) {
          void send(ctx, ctx.picker.next(), ctx.t0 + BigInt(Math.round(next.value)));
          next = offsets.next();
          n++;
          if (n % 64 === 0) now = Number(process.hrtime.bigint() - ctx.t0);
        }
        if (next.done) return resolve();
        const waitNs = next.value - Number(process.hrtime.bigint() - ctx.t0);
        // libuv timers have 1 ms granularity (a timer for d ms fires d to d+1 ms later): wake up to
        // 1 ms early, then wait the rest in loop turns (I/O is still handled between them), so
        // requests go out within a few µs of schedule at the cost of at most 1 ms of turns each.
        if (waitNs >= 2 * SPIN_NS) this.timer = setTimeout(turn, Math.floor(waitNs / 1e6) - 1);
        else this.immediate = setImmediate(turn);
      };
      turn();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.finish?.();
  }
}

/**
 * Closed model: each virtual user sends its next request when its previous one has answered (and
 * its think time passed). With a ramp, users beyond the current target idle until they are needed.
 */
export class ClosedModelDriver {
  private stopped = false;
  private readonly sleepers = new Set<() => void>();

  constructor(
    private readonly ctx: DriverContext,
    private readonly model: LoadModel,
    private readonly durationMs: number,
    private readonly maxVus: number,
  ) {}

  private finish: (() => void) | undefined;

  /** Resolves when the duration is over or stop() is called (requests in flight are the runner's to wait for). */
  async run(): Promise<void> {
    const stopped = new Promise<void>((resolve) => (this.finish = resolve));
    await Promise.race([this.users(), stopped]);
  }

  private async users(): Promise<void> {
    const { ctx } = this;
    const endNs = ctx.t0 + BigInt(this.durationMs) * 1_000_000n;
    const thinkMs = this.model.kind === 'vus' || this.model.kind === 'vus-stages' ? this.model.thinkTimeMs : 0;
    const user = async (i: number) => {
      while (!this.stopped && process.hrtime.bigint() < endNs) {
        const tMs = Number(process.hrtime.bigint() - ctx.t0) / 1e6;
        if (i >= (vusAt(this.model, tMs) ?? 0)) {
          await this.sleep(50);
          continue;
        }
        // In a closed model the next request is due when the previous one answered: intended = now.
        const p = send(ctx, ctx.picker.next(), process.hrtime.bigint());
        if (p) await p;
        // No usable connection (an outage): the failure is recorded; wait about one reconnect
        // step, so an outage costs a few errors per user per second, not one per poll.
        else await this.sleep(250);
        if (thinkMs > 0) await this.sleep(thinkMs);
      }
    };
    await Promise.all(Array.from({ length: this.maxVus }, (_, i) => user(i)));
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  stop(): void {
    this.stopped = true;
    for (const wake of [...this.sleepers]) wake();
    this.finish?.();
  }
}

/** Active VUs now, for the interval record (closed models). */
export function activeVus(model: LoadModel, t0: bigint): number | null {
  return vusAt(model, Number(process.hrtime.bigint() - t0) / 1e6);
}
