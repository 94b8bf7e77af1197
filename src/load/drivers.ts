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
import { LoadCall, type DriverContext } from './load-call';
import type { Request } from './requests';
import { ArrivalCursor, vusAt } from './schedule';
import type { LoadModel } from '../core/load-types';

export type { DriverContext, RawSample } from './load-call';

/** How long before a due time the timer wakes; the rest is waited in setImmediate turns. */
const SPIN_NS = 1_000_000;
/** Requests sent in one turn before yielding to I/O, so a backlog cannot starve replies. */
const MAX_PER_TURN = 2_000;
/**
 * Requests queued before the queues are written: a long backlog goes out in chunks, so the
 * first of a turn does not wait for the last to be encoded (its lag is measured at its write).
 */
const FLUSH_EVERY = 64;
/**
 * How long a queued request may wait for the next ones to share its write, when they are due that
 * soon. A write costs ~10 µs of kernel time on loopback, far more than the rest of a request, so
 * at high rates a write per request would be most of the generator's work; at rates below
 * 1/HOLD_NS (20 000/s) nothing waits. The wait is part of the measured lag (actual − intended).
 */
const HOLD_NS = 50_000;

/**
 * Requests queued per connection and written together: at the end of the turn that queued them,
 * or up to HOLD_NS later. Requests written together stay on one connection (the next batch takes
 * the next one, round robin): a write costs more than everything else a request needs (on
 * loopback, the kernel delivers it to the server within the call), and spreading a batch over
 * every connection would mean a write per request again. Each request's lag is its own
 * connection's write time minus its own intended time.
 */
class TurnBatch {
  /** Intended time of the oldest request queued and not yet written (Infinity: none). */
  oldestNs = Infinity;
  /** Requests queued and not yet written. */
  size = 0;
  /** Per connection, the calls queued since its last write: `counts[i]` of `queued[i]` (arrays keep their capacity). */
  private readonly queued: Array<Array<LoadCall | undefined>>;
  private readonly counts: number[];
  private readonly touched: number[] = [];
  private touchedCount = 0;
  /** The connection this batch's requests go to, while it has room. */
  private stay: number | undefined;

  constructor(private readonly ctx: DriverContext) {
    this.queued = ctx.conns.slots.map(() => []);
    this.counts = ctx.conns.slots.map(() => 0);
  }

  /**
   * Queues `req`, due at `intendedNs`, on a connection with room in its pipeline. Null when there
   * is none: the request is recorded as dropped (pipelines full) or as a disconnect (all down).
   */
  add(req: Request, intendedNs: number, whenDone?: () => void): LoadCall | null {
    const { ctx } = this;
    const picked = ctx.conns.pick(this.stay);
    if (picked < 0) {
      recordUnsent(ctx, req, intendedNs);
      return null;
    }
    this.stay = picked;
    const slot = ctx.conns.slots[picked];
    const call = new LoadCall(ctx, req, intendedNs, slot, picked, whenDone);
    slot.inFlight++;
    if (this.size++ === 0) this.oldestNs = intendedNs;
    const n = this.counts[picked]++;
    if (n === 0) this.touched[this.touchedCount++] = picked;
    this.queued[picked][n] = call;
    slot.client!.queue(req.rpc, req.scripthash, call, ctx.timeoutMs);
    return call;
  }

  /** Writes every connection's queue; each request's send time is its connection's write. */
  flush(): void {
    const { ctx } = this;
    for (let t = 0; t < this.touchedCount; t++) {
      const index = this.touched[t];
      const at = ctx.conns.slots[index].client?.flush() ?? null;
      const actualNs = at === null ? ctx.clock.now() : ctx.clock.of(at);
      const q = this.queued[index];
      const n = this.counts[index];
      for (let i = 0; i < n; i++) {
        q[i]!.written(actualNs);
        q[i] = undefined; // not kept alive until overwritten
      }
      this.counts[index] = 0;
    }
    this.touchedCount = 0;
    this.stay = undefined;
    this.size = 0;
    this.oldestNs = Infinity;
  }
}

/** A request no connection could take: dropped (every pipeline full) or a disconnect (none usable). */
function recordUnsent(ctx: DriverContext, req: Request, intendedNs: number): void {
  if (ctx.conns.allDown) {
    // No connection at all: the server is unreachable (refused, reset), an error, not our saturation.
    const now = ctx.clock.now();
    ctx.recorder.sentOne((now - intendedNs) / 1000);
    ctx.recorder.completed(req.method, 'disconnect', intendedNs, now, now, 0, false);
    ctx.onSample?.({ intendedUs: intendedNs / 1000, method: req.method, outcome: 'disconnect', latencyUs: (now - intendedNs) / 1000, serviceUs: 0 });
  } else {
    ctx.recorder.droppedOne(req.method);
    ctx.onSample?.({ intendedUs: intendedNs / 1000, method: req.method, outcome: 'dropped', latencyUs: null, serviceUs: null });
  }
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
  private arrivals: ArrivalCursor | undefined;
  /** The first request of the schedule not sent, once the run is done (Infinity: none left). */
  private next = Infinity;

  constructor(
    private readonly ctx: DriverContext,
    private readonly model: LoadModel,
    private readonly durationMs: number,
    private readonly shard?: { index: number; count: number },
  ) {}

  /** Requests of the schedule not sent (a stop came first): each must still end as an outcome. */
  unsent(): number {
    if (!this.arrivals) {
      // Stopped before it began: the whole schedule is left.
      this.arrivals = new ArrivalCursor(this.model, this.durationMs, this.shard);
      this.next = this.arrivals.next();
    }
    let n = 0;
    for (let t = this.next; t !== Infinity; t = this.arrivals.next()) n++;
    this.next = Infinity;
    return n;
  }

  run(): Promise<void> {
    const arrivals = (this.arrivals = new ArrivalCursor(this.model, this.durationMs, this.shard));
    const { ctx } = this;
    const batch = new TurnBatch(ctx);
    let next = arrivals.next();
    // Queues every request due by now and writes them, unless the next is due so soon that the
    // oldest queued one can wait for it (HOLD_NS) and share the write.
    const sendDue = () => {
      let now = ctx.clock.now();
      let n = 0;
      while (next <= now && n < MAX_PER_TURN) {
        batch.add(ctx.picker.next(), next);
        next = arrivals.next();
        n++;
        if (batch.size >= FLUSH_EVERY) {
          batch.flush();
          now = ctx.clock.now();
        }
      }
      if (batch.size > 0 && (now - batch.oldestNs >= HOLD_NS || next - batch.oldestNs > HOLD_NS)) batch.flush();
    };
    return new Promise<void>((resolve) => {
      const done = () => {
        batch.flush(); // nothing queued is left unwritten
        this.next = next; // where a stop left the schedule
        resolve();
      };
      this.finish = done;
      const turn = () => {
        this.timer = undefined;
        this.immediate = undefined;
        if (this.stopped) return done();
        sendDue();
        if (next === Infinity) return done();
        const waitNs = Math.min(next, batch.oldestNs + HOLD_NS) - ctx.clock.now();
        // libuv timers have 1 ms granularity (a timer for d ms fires d to d+1 ms later): wake up to
        // 1 ms early, then wait the rest in loop turns (I/O is still handled between them), so
        // requests go out within a few µs of schedule at the cost of at most 1 ms of turns each.
        if (waitNs >= 2 * SPIN_NS) this.timer = setTimeout(turn, Math.floor(waitNs / 1e6) - 1);
        else this.immediate = setImmediate(turn);
      };
      // Replies are read in chunks of up to thousands: requests falling due meanwhile go out
      // between them rather than after the whole chunk.
      ctx.conns.onReplies = () => {
        if (this.stopped) return;
        const now = ctx.clock.now();
        if (next <= now || batch.oldestNs + HOLD_NS <= now) sendDue();
      };
      turn();
    }).finally(() => (ctx.conns.onReplies = undefined));
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
    const endNs = this.durationMs * 1e6;
    const thinkMs = this.model.kind === 'vus' || this.model.kind === 'vus-stages' ? this.model.thinkTimeMs : 0;
    const batch = new TurnBatch(ctx);
    const user = async (i: number) => {
      while (!this.stopped && ctx.clock.now() < endNs) {
        const tMs = ctx.clock.now() / 1e6;
        if (i >= (vusAt(this.model, tMs) ?? 0)) {
          await this.sleep(50);
          continue;
        }
        // In a closed model the next request is due when the previous one answered: intended = now.
        let sent = false;
        await new Promise<void>((resolve) => {
          sent = batch.add(ctx.picker.next(), ctx.clock.now(), resolve) !== null;
          batch.flush();
          if (!sent) resolve();
        });
        // No usable connection (an outage): the failure is recorded; wait about one reconnect
        // step, so an outage costs a few errors per user per second, not one per poll.
        if (!sent) await this.sleep(250);
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
export function activeVus(model: LoadModel, clock: { now(): number }): number | null {
  return vusAt(model, clock.now() / 1e6);
}
