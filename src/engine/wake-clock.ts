/**
 * Wakes the open model at a send time without spinning for it (issue #19). libuv's timers have 1 ms
 * granularity, so the engine used to wake 1 ms early and wait the rest in event-loop turns: precise,
 * but a spun millisecond per send is 50 % of a core at 400/s, taken from the server it measures on
 * a shared machine. Here a worker thread owns the waiting: Atomics.wait takes a fractional timeout
 * (a futex, precise to tens of µs) and the worker posts to the main thread when it is reached. The
 * post takes its own time to arrive (the hop, ~0.1 ms), so the worker is asked to wake a hop early,
 * by a moving estimate of the hops it has taken; a wake still well early is asked for again, and
 * only the last µs are waited in turns by the caller. bench/wake-timing.ts measures this against
 * the other ways (docs/findings/2026-11-24-engine-iterations-and-wake-clock.md): the waiting alone
 * at 400/s, lag p99 ~0.38 ms for ~2 % of a core, where a millisecond of turns per send held it to
 * ~0.09 ms for 57 %.
 *
 * One worker serves the whole process, started before an open model's schedule (wakeClockStarted)
 * or on first use; it keeps the process alive only while a wake is awaited, as the timer it
 * replaces did. Until it is up (tens of ms) and if it cannot start, a timer does the waiting, up to
 * 1 ms early as before.
 */
import { Worker } from 'node:worker_threads';

/** The hop estimate's cap: on a busy machine one late post must not turn every later wait into turns. */
const MAX_HOP_NS = 250_000;
/** A block's oversleep counted at most this much: one stall of the machine must not set the lead for long. */
const MAX_OVERSLEEP_NS = 1_000_000;
/** The most a block's sleep is cut short: the rest is waited in place, which costs CPU. */
export const MAX_LEAD_NS = 500_000;

/**
 * How late a wake comes, as it goes: the mean and the mean deviation, smoothed as TCP smooths a
 * round trip (RFC 6298). Aimed the mean early, about half the wakes are late; aimed four
 * deviations more, almost none, and the rest is waited in place, which is what that lead costs
 * (issue #41: a late wake makes a late send, flagged above 0.1 ms). The block, the
 * low rates' wake, takes the lead; the clock's worker, asked for between batches at thousands a
 * second, the usual lateness (the rest there is waited in loop turns, on every wake).
 */
export class Lateness {
  private devNs: number;

  constructor(
    private meanNs: number,
    /** A single lateness counts at most this much. */
    private readonly maxNs: number,
  ) {
    this.devNs = meanNs / 2;
  }

  note(lateNs: number): void {
    const late = Math.min(this.maxNs, Math.max(0, lateNs));
    const err = late - this.meanNs;
    this.meanNs += err / 8;
    this.devNs += (Math.abs(err) - this.devNs) / 4;
  }

  /** The usual lateness: what a wake costs. */
  get typicalNs(): number {
    return this.meanNs;
  }

  /** How early to aim so that a wake is almost never late. */
  get leadNs(): number {
    return Math.min(MAX_LEAD_NS, this.meanNs + 4 * this.devNs);
  }
}

const WORKER = `
  const { parentPort, workerData } = require('node:worker_threads');
  const due = new BigInt64Array(workerData, 0, 1);
  const bell = new Int32Array(workerData, 8, 1);
  parentPort.postMessage('ready');
  for (;;) {
    const seen = Atomics.load(bell, 0);
    if (seen < 0) break;
    const at = Atomics.load(due, 0);
    const waitNs = Number(at - process.hrtime.bigint());
    if (at > 0n && waitNs <= 0) {
      // Posted only if the main thread has neither set a new time nor withdrawn this one meanwhile.
      if (Atomics.compareExchange(due, 0, at, 0n) === at) parentPort.postMessage(Number(at));
      continue;
    }
    // Woken early by a new due time (the bell rings) or at the due time itself.
    Atomics.wait(bell, 0, seen, at > 0n ? waitNs / 1e6 : Infinity);
  }
`;

const nowNs = (): number => Number(process.hrtime.bigint());

interface Waiter {
  atNs: number;
  fn: () => void;
}

class WakeClock {
  private worker: Worker | null = null;
  private ready = false;
  private failed = false;
  private readonly due: BigInt64Array;
  private readonly bell: Int32Array;
  private readonly shared = new SharedArrayBuffer(16);
  private readonly waiters = new Set<Waiter>();
  /** The due time the worker is waiting for (0: none). */
  private armedNs = 0;
  private readonly hop = new Lateness(100_000, MAX_HOP_NS);
  private timer: NodeJS.Timeout | undefined;
  /** Settled once the worker is up or could not start. */
  private settled: Promise<void> | undefined;
  private settle: (() => void) | undefined;

  constructor() {
    this.due = new BigInt64Array(this.shared, 0, 1);
    this.bell = new Int32Array(this.shared, 8, 1);
  }

  /** What a wake costs here: the hops its worker's wakes took (a moving estimate; a first guess until one came). */
  get costNs(): number {
    return this.hop.typicalNs;
  }

  /** How early a wake is aimed: the usual hop, or the timer's millisecond while there is no worker. */
  get leadNs(): number {
    // The usual hop, not a lead that covers nearly every one: a wake here is asked for between
    // batches at thousands a second, and what a wake comes early by is waited in turns (CPU).
    return this.ready ? this.hop.typicalNs : 1_000_000;
  }

  /** Calls `fn` about at `atNs` (hrtime ns), a little before or after: the caller asks again or waits the last µs in turns. Returns the cancel. */
  at(atNs: number, fn: () => void): () => void {
    const w: Waiter = { atNs, fn };
    this.waiters.add(w);
    this.start();
    this.arm();
    return () => {
      // Re-armed at once: a cancelled wait must not keep the process alive until its time.
      if (this.waiters.delete(w)) this.arm();
    };
  }

  get up(): boolean {
    return this.ready;
  }

  /** Resolves once the worker is up, or could not start (a timer does the waiting then). */
  upOrFailed(): Promise<void> {
    this.start();
    if (this.ready || this.failed) return Promise.resolve();
    return (this.settled ??= new Promise<void>((resolve) => (this.settle = resolve)));
  }

  start(): void {
    if (this.worker || this.failed) return;
    try {
      const worker = new Worker(WORKER, { eval: true, workerData: this.shared });
      worker.on('message', (m: 'ready' | number) => {
        if (m === 'ready') {
          this.ready = true;
          this.settle?.();
        } else {
          this.hop.note(nowNs() - m);
          if (m === Math.round(this.armedNs)) this.armedNs = 0;
        }
        this.fire();
      });
      worker.on('error', () => this.fail());
      worker.on('exit', () => this.fail());
      this.worker = worker;
      // Started ahead of any wait (shortestWakeNs): it keeps the process alive only while one is awaited.
      if (this.waiters.size === 0) worker.unref();
    } catch {
      this.fail();
    }
  }

  private fail(): void {
    this.settle?.();
    this.failed = true;
    this.ready = false;
    this.worker = null;
    this.armedNs = 0;
    this.arm();
  }

  /** Runs every waiter whose wake time has come, then arms for the next. */
  private fire(): void {
    const now = nowNs();
    const lead = this.leadNs;
    for (const w of [...this.waiters]) {
      // Cancelled by an earlier waiter's callback in this same round: it does not run.
      if (!this.waiters.has(w)) continue;
      if (w.atNs - lead <= now) {
        this.waiters.delete(w);
        w.fn();
      }
    }
    this.arm();
  }

  /**
   * The worker's time taken back without waking it (a notify is a syscall and a wake of its
   * thread): it wakes at that time, finds nothing and sleeps on, posting nothing.
   */
  private withdraw(): void {
    if (this.armedNs === 0) return;
    Atomics.store(this.due, 0, 0n);
    this.armedNs = 0;
  }

  private arm(): void {
    let first = Infinity;
    for (const w of this.waiters) first = Math.min(first, w.atNs);
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // A wake someone waits for keeps the process alive, as the timer it replaces did; none, and the
    // worker never does.
    if (first === Infinity) {
      this.worker?.unref();
      this.withdraw();
      return;
    }
    this.worker?.ref();
    const wakeNs = first - this.leadNs;
    const waitNs = wakeNs - nowNs();
    if (waitNs <= 0) {
      setImmediate(() => this.fire());
      return;
    }
    if (this.ready && this.worker) {
      if (this.armedNs === wakeNs) return;
      this.armedNs = wakeNs;
      Atomics.store(this.due, 0, BigInt(Math.round(wakeNs)));
      Atomics.add(this.bell, 0, 1);
      Atomics.notify(this.bell, 0);
      return;
    }
    // No worker (yet): a timer up to 1 ms early, as the engine waited before.
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.floor(waitNs / 1e6)));
  }
}

let clock: WakeClock | undefined;

/** Calls `fn` about at `atNs` (process.hrtime.bigint() as a number); returns a cancel. */
export function wakeNear(atNs: number, fn: () => void): () => void {
  clock ??= new WakeClock();
  return clock.at(atNs, fn);
}

/**
 * Resolves once the clock's worker is up (or could not start), at most `capMs` later. An open
 * model's schedule starts after it: started in the first turn, the worker's start-up (a thread, an
 * isolate, two collections of 6–11 ms) took a one-core generator's CPU from its first sends. At
 * 100,000/s over 16 connections of 64, the first second dropped 5,028–7,580 requests with it, and
 * 2,962–4,276 without (five pairs; issue #41).
 */
export async function wakeClockStarted(capMs: number): Promise<void> {
  clock ??= new WakeClock();
  // Every later run of the process (an interleaved turn, a search's step) finds it up.
  if (clock.up) return;
  let cap: NodeJS.Timeout | undefined;
  await Promise.race([clock.upOrFailed(), new Promise<void>((resolve) => (cap = setTimeout(resolve, capMs)))]);
  clearTimeout(cap);
}

/** Whether the clock's worker is up (before, and if it cannot start, a timer does its waiting). */
export function wakeClockUp(): boolean {
  return clock?.up ?? false;
}

/**
 * The shortest wait worth giving the clock: twice its lead. A shorter one would be all hop and no
 * sleep (at thousands of sends a second the gaps are tens of µs), so it is waited in turns.
 */
export function shortestWakeNs(): number {
  clock ??= new WakeClock();
  // Its worker started now: a schedule whose every gap is under the timer's 2 ms would otherwise
  // never call wakeNear, and be waited in loop turns from start to end.
  clock.start();
  return 2 * clock.leadNs;
}

/**
 * How long the first of several requests may wait for the others to share one wake (issue #41):
 * WAKES_SHARE_INVERSE times what a wake costs here, so that waking for batches takes about
 * 1/WAKES_SHARE_INVERSE of the time they span, at most MAX_BATCH_WINDOW_NS. A wake costs about its
 * hop in CPU time as well: on the 2-core VM of the findings ~0.1 ms of CPU per wake (an idle
 * process woken 50 times a second) and hops of ~0.1 ms, and both grow with the machine's load.
 * Sends further apart than this each get a wake of their own.
 */
export function batchWindowNs(): number {
  clock ??= new WakeClock();
  return Math.min(MAX_BATCH_WINDOW_NS, WAKES_SHARE_INVERSE * clock.costNs);
}

/** Waking for batches takes about one part in this of the time they span. */
const WAKES_SHARE_INVERSE = 8;
/**
 * The longest a request waits for the others of its batch: with the wake's own lateness (~0.1–0.2
 * ms here) its lag stays within the 1 ms issue #41 allows at thousands of requests a second.
 */
export const MAX_BATCH_WINDOW_NS = 800_000;

/**
 * Resolves at `atNs` (process.hrtime.bigint() as a number) or a little after, never before, and
 * without holding the event loop or spinning: the clock is asked for a wake one lead later than
 * the time, so the wake that comes about then is past it (late by about a hop). For a pause that
 * must last at least its length, where wakeNear only has to come about on time.
 */
export function sleepUntil(atNs: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (nowNs() >= atNs) return resolve();
      clock ??= new WakeClock();
      wakeNear(atNs + clock.leadNs, check);
    };
    check();
  });
}

/**
 * The longest block: it delays the loop's timers, signals and unmeasured I/O (outputs, a
 * coordinator) by as much. 25 ms covers the gap between sends down to 40 a second.
 */
export const MAX_BLOCK_NS = 25_000_000;

/** A cell no one notifies: Atomics.wait on it is a sleep with a fractional timeout (a futex). */
const BLOCK_CELL = new Int32Array(new SharedArrayBuffer(4));
/** How much longer than asked a block's sleep lasts: sleeps are asked shorter by its lead. */
const blockOversleep = new Lateness(50_000, MAX_OVERSLEEP_NS);
/** The last µs of a block are waited in place: a sleep that short would end late. */
export const BLOCK_SPIN_NS = 30_000;

/**
 * How a block ends against its time:
 * - `exact`: at it, never before; the sleep is asked to end early by the sleeps' usual oversleep
 *   and four deviations (Lateness), and the rest is waited in place (CPU);
 * - `early`: the same sleep, without the rest: it may end up to that lead early, for a caller to
 *   whom early is as good (a first block, before a second, exact one);
 * - `late`: the whole time slept, none of it in place: it ends after its time by the kernel's
 *   wake-up (the oversleep, tens of µs here), for a caller to whom a little late is as good and
 *   early is not (a batch's wake, aimed at its last request).
 */
export type BlockEnd = 'exact' | 'early' | 'late';

/**
 * Sleeps on the calling thread until `atNs`, as `end` says (above), or for MAX_BLOCK_NS if that
 * comes first. It blocks the event loop: no I/O, timer or signal is handled meanwhile, so a caller
 * blocks only when nothing it measures can arrive in that time (no answer is awaited). What it
 * saves: the clock's worker wake and its message, and the loop's own wake for them — per send, the
 * largest part of what a sleeping generator costs at a few hundred a second.
 */
export function blockUntil(atNs: number, end: BlockEnd = 'exact'): void {
  const endNs = Math.min(atNs, nowNs() + MAX_BLOCK_NS);
  if (end === 'late') {
    for (let left = endNs - nowNs(); left > 0; left = endNs - nowNs()) {
      Atomics.wait(BLOCK_CELL, 0, 0, left / 1e6);
      blockOversleep.note(nowNs() - endNs);
    }
    return;
  }
  // Within the lead of the end, another sleep would be as likely to end late as the one before.
  for (let left = endNs - nowNs(); left > Math.max(BLOCK_SPIN_NS, blockOversleep.leadNs); left = endNs - nowNs()) {
    const askNs = left - blockOversleep.leadNs;
    const from = nowNs();
    Atomics.wait(BLOCK_CELL, 0, 0, askNs / 1e6);
    blockOversleep.note(nowNs() - from - askNs);
  }
  while (end === 'exact' && nowNs() < endNs) {
    /* the last µs: nothing can arrive meanwhile that this would delay */
  }
}
