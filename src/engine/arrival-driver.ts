/**
 * The open model, shared by the arrival-rate executors: units of work (requests, wallet syncs) start
 * on a schedule fixed in advance and never wait for earlier ones to end; a request finding every
 * connection's pipeline full is counted as dropped, never silently delayed; latency is measured
 * from the intended start, so a stalled server shows up as latency, not as a pause in sending
 * (coordinated omission). The executor says when each unit is due (its ArrivalCursor); this file
 * starts them on time.
 */
import type { IterationContext } from './iteration';
import type { Pacer } from './executors/executor';
import type { Shard } from '../core/shard';
import { blockUntil, MAX_BLOCK_NS, shortestWakeNs, wakeNear } from './wake-clock';
import { giveSpareMoment, givingSpareMoments } from './spare-time';

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
 * A wait of 1.5 ms or more starts on a timer, aimed 2 ms before the send (but 1 ms at least):
 * libuv's timers count whole ms and fire up to 1 ms early, so it fires 0.5–4 ms before the send
 * (later on a loaded machine), and what is left is a block or a wake of the clock.
 */
const TIMER_MIN_NS = 1_500_000;
const TIMER_MARGIN_MS = 2;
/** Room before the next send a step of deferred bookkeeping is given (one takes up to ~0.5 ms). */
const SPARE_ROOM_NS = 1_000_000;

/**
 * When each request is due, one at a time, Infinity after the last: what the driver reads once per
 * request (a generator's resumption and result object per request cost more). Each arrival-rate
 * executor gives the offset of the k-th request; the cursor ends the schedule and thins it for a
 * shard: shard I of N takes every request whose global index is ≡ I−1 (mod N), so the shards
 * together send the whole schedule.
 */
export abstract class ArrivalCursor {
  private readonly endNs: number;
  private readonly shard: Shard;
  private k = 0; // global index of the next request (all shards)

  constructor(durationMs: number, shard: Shard = { index: 1, count: 1 }) {
    this.endNs = durationMs * 1e6;
    this.shard = shard;
  }

  next(): number {
    for (;;) {
      const k = this.k++;
      const t = this.offsetOf(k);
      if (t === Infinity || t >= this.endNs) return (this.k = Infinity);
      if (k % this.shard.count === this.shard.index - 1) return t;
    }
  }

  /** When the k-th request (in order: k only grows) is due in ns from the start, or Infinity past the schedule's end. */
  protected abstract offsetOf(k: number): number;
}

/** Every intended send offset of a cursor, in order (for tests and tools; the driver reads next()). */
export function* arrivalOffsetsNs(cursor: ArrivalCursor): Generator<number> {
  for (let t = cursor.next(); t !== Infinity; t = cursor.next()) yield t;
}

/**
 * Open model: follows the arrival schedule until it ends or stop() is called. Resolves once the
 * schedule is done (in-flight requests are the runner's to wait for).
 */
export class ArrivalDriver implements Pacer {
  private stopped = false;
  /** Cancels the wait for the next turn (a timer, a wake or a loop turn), if one is pending. */
  private pending: (() => void) | undefined;
  /** The latest timer set for a turn, and its generation: an older one's call does nothing. */
  private timer: NodeJS.Timeout | undefined;
  private timerGeneration = 0;
  private finish: (() => void) | undefined;
  private started = false;
  /** The first request of the schedule not sent, once the run is done (Infinity: none left). */
  private next = Infinity;

  constructor(
    private readonly ctx: IterationContext,
    private readonly arrivals: ArrivalCursor,
  ) {}

  /** Requests of the schedule not sent (a stop came first): each must still end as an outcome. */
  unsent(): number {
    if (!this.started) {
      // Stopped before it began: the whole schedule is left.
      this.started = true;
      this.next = this.arrivals.next();
    }
    let n = 0;
    for (let t = this.next; t !== Infinity; t = this.arrivals.next()) n++;
    this.next = Infinity;
    return n;
  }

  run(): Promise<void> {
    const { ctx, arrivals } = this;
    const batch = ctx.batch();
    this.started = true;
    let next = arrivals.next();
    // Queues every request due by now and writes them, unless the next is due so soon that the
    // oldest queued one can wait for it (HOLD_NS) and share the write.
    const sendDue = () => {
      let now = ctx.clock.now();
      let n = 0;
      while (next <= now && n < MAX_PER_TURN) {
        batch.add(next);
        next = arrivals.next();
        n++;
        if (batch.size >= FLUSH_EVERY) {
          batch.flush();
          now = ctx.clock.now();
        }
      }
      if (batch.size > 0 && (now - batch.oldestNs >= HOLD_NS || next - batch.oldestNs > HOLD_NS)) batch.flush();
    };
    const dueNs = () => Math.min(next, batch.oldestNs + HOLD_NS);
    return new Promise<void>((resolve) => {
      const done = () => {
        batch.flush(); // nothing queued is left unwritten
        this.next = next; // where a stop left the schedule
        resolve();
      };
      this.finish = done;
      // Nothing in flight and room before the next send: a step of the bookkeeping waiting for a
      // spare moment (spare-time.ts) runs first, and the turn comes again after it. True if so.
      const spared = (roomNs: number): boolean => {
        if (roomNs < SPARE_ROOM_NS || !giveSpareMoment()) return false;
        const immediate = setImmediate(turn);
        this.pending = () => clearImmediate(immediate);
        return true;
      };
      // Sends what is due, then waits for the next send in the cheapest way that is on time:
      // - nothing in flight and the send within MAX_BLOCK_NS: the loop is blocked until it (no
      //   answer can arrive to be timed late meanwhile), a single sleep of this thread, once any
      //   bookkeeping waiting for a spare moment had it;
      // - the send TIMER_MIN_NS away or more: a timer, then this again;
      // - else the wake clock (wake-clock.ts), whose worker wakes us about on time without
      //   spinning; a wake still early asks again, and the last µs, or a gap too short to sleep in,
      //   are waited in loop turns (I/O is still handled between them).
      // One block per turn: a turn that sent nothing (every connection down) goes back to the loop.
      const turn = (mayBlock = true): void => {
        this.pending = undefined;
        this.timer = undefined;
        if (this.stopped) return done();
        sendDue();
        if (next === Infinity) return done();
        const waitNs = dueNs() - ctx.clock.now();
        if (mayBlock && waitNs <= MAX_BLOCK_NS && ctx.quiet?.()) {
          if (spared(waitNs)) return;
          // Not past a whole second of the run's clock: the runner closes its intervals on them,
          // and a send blocked past one would be counted in the second before.
          const now = ctx.clock.now();
          blockUntil(Number(ctx.clock.t0) + Math.min(dueNs(), (Math.floor(now / 1e9) + 1) * 1e9));
          return turn(false);
        }
        if (waitNs >= TIMER_MIN_NS) {
          // Given up on (an answer in, a block instead), it is left to lapse, not cleared: clearing
          // costs more than its call, and the block it gave way to outlasts it (no wake of its own).
          const generation = ++this.timerGeneration;
          this.timer = setTimeout(() => generation === this.timerGeneration && turn(), Math.max(1, Math.floor(waitNs / 1e6) - TIMER_MARGIN_MS));
          this.pending = () => this.timerGeneration++;
        } else if (waitNs >= shortestWakeNs()) {
          this.pending = wakeNear(Number(ctx.clock.t0) + dueNs(), turn);
        } else {
          const immediate = setImmediate(turn);
          this.pending = () => clearImmediate(immediate);
        }
      };
      // Replies are read in chunks of up to thousands: requests falling due meanwhile go out
      // between them rather than after the whole chunk. The last answer in, with the next send
      // near, the wait for it becomes a block (no timer or worker wake more).
      ctx.onProgress(() => {
        if (this.stopped || !this.pending) return;
        const now = ctx.clock.now();
        if (next <= now || batch.oldestNs + HOLD_NS <= now) return sendDue();
        if (!ctx.quiet?.()) return;
        if (dueNs() - now > MAX_BLOCK_NS) return spareWhileRoom(); // the turn due later stays as it is
        this.pending();
        turn();
      });
      // Nothing in flight and the next send far off: the waiting bookkeeping has its moments, one
      // per loop turn, while that lasts.
      const spareWhileRoom = (): void => {
        if (this.stopped || !ctx.quiet?.() || dueNs() - ctx.clock.now() < SPARE_ROOM_NS || !giveSpareMoment()) return;
        setImmediate(spareWhileRoom);
      };
      // An iteration that cannot say when nothing is in flight has no moment to spare.
      if (ctx.quiet) givingSpareMoments(true);
      turn();
    }).finally(() => {
      ctx.onProgress(undefined);
      if (ctx.quiet) givingSpareMoments(false);
    });
  }

  vusAt(): null {
    return null;
  }

  stop(): void {
    this.stopped = true;
    this.pending?.();
    this.pending = undefined;
    // A stopped run's timer must not keep the process alive until it lapses.
    if (this.timer) clearTimeout(this.timer);
    this.finish?.();
  }
}

