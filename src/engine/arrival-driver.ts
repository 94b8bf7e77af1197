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
import { batchWindowNs, blockUntil, MAX_BLOCK_NS, shortestWakeNs, wakeNear } from './wake-clock';
import { giveSpareMoment, givingSpareMoments } from '../core/spare-time';

/** Requests sent in one turn before yielding to I/O, so a backlog cannot starve replies. */
const MAX_PER_TURN = 2_000;
/**
 * Requests queued before the queues are written: a long backlog goes out in chunks, so the
 * first of a turn does not wait for the last to be encoded (its lag is measured at its write).
 */
const FLUSH_EVERY = 64;
/**
 * A wait of 1.5 ms or more starts on a timer, aimed 2 ms before the send (but 1 ms at least):
 * libuv's timers count whole ms and fire up to 1 ms early, so it fires 0.5–4 ms before the send
 * (later on a loaded machine), and what is left is a block or a wake of the clock.
 */
const TIMER_MIN_NS = 1_500_000;
const TIMER_MARGIN_MS = 2;
/** Room before the next send a step of deferred bookkeeping is given (one takes up to ~0.5 ms). */
const SPARE_ROOM_NS = 1_000_000;
/** A blocked batch's requests are built this long before their time, so that after the block only their write is left. */
export const QUEUE_AHEAD_NS = 500_000;

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
 * The schedule read ahead of the sends: the intended times drawn from the cursor and not yet sent,
 * so that a turn can tell which requests the next wake can take together. (Exported for its tests.)
 */
export class ScheduleAhead {
  private readonly times: number[] = [];
  private head = 0;
  /** lastWithin's answer for the head and window it was asked with. */
  private memo = { head: -1, windowNs: -1, atNs: Infinity };

  constructor(private readonly cursor: ArrivalCursor) {}

  /** The first request not sent yet (Infinity: none left). */
  get first(): number {
    return this.head < this.times.length ? this.times[this.head] : this.pull();
  }

  /** The first request's time, taken: it is being sent (or counted as not sent). */
  take(): number {
    const t = this.first;
    if (t === Infinity) return t;
    if (++this.head > 1024 && this.head * 2 > this.times.length) {
      // What was sent is dropped now and then: the array stays about the size of a window.
      this.times.splice(0, this.head);
      this.head = 0;
      this.memo.head = -1;
    }
    return t;
  }

  /**
   * The last intended time at most `windowNs` after the first's: a wake then sends every request
   * up to it, and none of them waits longer than the window (the first the longest). With no other
   * request that close, the first's own time.
   */
  lastWithin(windowNs: number): number {
    const { memo } = this;
    if (memo.head === this.head && memo.windowNs === windowNs) return memo.atNs;
    const first = this.first;
    if (first === Infinity) return Infinity;
    const end = first + windowNs;
    let i = this.head;
    for (;;) {
      const after = i + 1 < this.times.length ? this.times[i + 1] : this.pull();
      if (after > end) break;
      i++;
    }
    memo.head = this.head;
    memo.windowNs = windowNs;
    memo.atNs = this.times[i];
    return memo.atNs;
  }

  /** Requests not sent: those read ahead and the rest of the schedule. */
  left(): number {
    let n = 0;
    for (let t = this.take(); t !== Infinity; t = this.take()) n++;
    return n;
  }

  /** Reads the next time from the cursor onto the end (once the end, Infinity, is read, no more). */
  private pull(): number {
    const last = this.times.length > 0 ? this.times[this.times.length - 1] : 0;
    if (last === Infinity) return Infinity;
    const t = this.cursor.next();
    this.times.push(t);
    return t;
  }
}

/**
 * Open model: follows the arrival schedule until it ends or stop() is called. Resolves once the
 * schedule is done (in-flight requests are the runner's to wait for).
 *
 * A wake per batch (issue #41): a wake costs this machine more than everything else a request
 * needs, so requests closer together than the batch window (wake-clock.ts, from what a wake
 * costs here) share one. A turn is aimed at the last request due within the window of the first
 * not sent, and sends everything due by the time it runs, one write per connection. None goes out
 * before its intended time, as none does in k6 or wrk2; each is timed from its own intended time,
 * and what it waited for the others of its batch, at most the window (and the wake's own
 * lateness), is its scheduling lag like any other. Requests further apart than the window each
 * get a wake of their own, as before.
 */
export class ArrivalDriver implements Pacer {
  private stopped = false;
  /** Cancels the wait for the next turn (a timer, a wake or a loop turn), if one is pending. */
  private pending: (() => void) | undefined;
  /** The latest timer set for a turn, and its generation: an older one's call does nothing. */
  private timer: NodeJS.Timeout | undefined;
  private timerGeneration = 0;
  private finish: (() => void) | undefined;
  private readonly ahead: ScheduleAhead;

  constructor(
    private readonly ctx: IterationContext,
    arrivals: ArrivalCursor,
  ) {
    this.ahead = new ScheduleAhead(arrivals);
  }

  /** Requests of the schedule not sent (a stop came first, or it never began): each must still end as an outcome. */
  unsent(): number {
    return this.ahead.left();
  }

  run(): Promise<void> {
    const { ctx, ahead } = this;
    const batch = ctx.batch();
    // Queues every request due by now and writes them (one write per connection).
    const sendDue = () => {
      let now = ctx.clock.now();
      let n = 0;
      while (ahead.first <= now && n < MAX_PER_TURN) {
        batch.add(ahead.take());
        n++;
        if (batch.size >= FLUSH_EVERY) {
          batch.flush();
          now = ctx.clock.now();
        }
      }
      if (batch.size > 0) batch.flush();
    };
    // When the next batch is due: the last request within the window of the first not sent.
    const dueNs = () => ahead.lastWithin(batchWindowNs());
    return new Promise<void>((resolve) => {
      const done = () => {
        batch.flush(); // nothing queued is left unwritten
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
      // Sends what is due (unless `send` is false: the wait is only chosen again), then waits for
      // the next batch in the cheapest way that is on time:
      // - nothing in flight and the batch within MAX_BLOCK_NS: the loop is blocked until it (no
      //   answer can arrive to be timed late meanwhile), a single sleep of this thread, once any
      //   bookkeeping waiting for a spare moment had it;
      // - the batch TIMER_MIN_NS away or more: a timer, then this again;
      // - else the wake clock (wake-clock.ts), whose worker wakes us about on time without
      //   spinning; a wake early sends what is due by then, and the rest starts the next batch.
      //   A gap too short to sleep in is waited in loop turns (I/O is still handled between them).
      // One block per turn: a turn that sent nothing (every connection down) goes back to the loop.
      const turn = (mayBlock = true, send = true): void => {
        this.pending = undefined;
        this.timer = undefined;
        if (this.stopped) return done();
        if (send) sendDue();
        if (ahead.first === Infinity) return done();
        const waitNs = dueNs() - ctx.clock.now();
        if (mayBlock && waitNs <= MAX_BLOCK_NS && ctx.quiet?.()) {
          if (spared(waitNs)) return;
          // Not past a whole second of the run's clock: the runner closes its intervals on them,
          // and a block past one would hold that close back; what is not due yet when it ends
          // starts the next batch.
          const now = ctx.clock.now();
          const due = dueNs();
          const atNs = Math.min(due, (Math.floor(now / 1e9) + 1) * 1e9);
          const t0 = Number(ctx.clock.t0);
          if (atNs === due && due === ahead.first) {
            // A request with no other in its window is queued just before its time and written
            // at it: after a sleep the first code to run is slow (the lab's VM took ~0.19 ms to
            // build one request after waking, and at 50/s nearly every send went out that late),
            // so the block wakes QUEUE_AHEAD_NS early, the request is built, and a second, exact
            // block leaves only the write for its time. Queued, it counts as in flight (the
            // loop-delay probe runs), which is why it is not queued before the whole block.
            blockUntil(t0 + atNs - QUEUE_AHEAD_NS, 'early');
            while (ahead.first <= atNs && batch.size < FLUSH_EVERY) batch.add(ahead.take());
            blockUntil(t0 + atNs, 'exact');
            batch.flush();
          } else if (atNs === due) {
            // A batch (issue #41) is slept to its last request's time and goes out after it by
            // the kernel's wake-up. An exact end waited the sleeps' lead (~0.1 ms) in place on
            // every batch, half the generator's CPU at 2,000–20,000/s; an early one left the last
            // request to start a batch of its own, and at 2,000/s woke more often than the exact
            // (docs/findings/2026-11-29-a-batch-slept-to-its-time.md).
            blockUntil(t0 + atNs, 'late');
          } else blockUntil(t0 + atNs, atNs === ahead.first ? 'exact' : 'early');
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
      // Replies are read in chunks of up to thousands: a batch falling due meanwhile goes out
      // between them rather than after the whole chunk (requests due before their batch is wait
      // for it: sent between chunks, they would cost a write and an answer of their own). The last
      // answer in, with the next batch near, the wait for it becomes a block (no timer or worker
      // wake more).
      ctx.onProgress(() => {
        if (this.stopped || !this.pending) return;
        const now = ctx.clock.now();
        if (dueNs() <= now) return sendDue();
        if (!ctx.quiet?.()) return;
        if (dueNs() - now > MAX_BLOCK_NS) return spareWhileRoom(); // the turn due later stays as it is
        this.pending();
        turn(true, false);
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
