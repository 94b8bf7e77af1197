/**
 * The Electrum wallet's cap on requests in flight on its connection: aiorpcx's outgoing concurrency
 * (its session.py), which starts at 50 and, every 30 answers, moves towards the number that would
 * answer in 3 s on average — in practice growing by max(3, 10 %) each time, up to 250, since a
 * server that answers in well under 3 s never holds it back. The time of an answer runs from the
 * request's write (into the send buffer) to its reply, as aiorpcx takes it.
 */
const START = 50;
const CEILING = 250;
const RECALIBRATE_EVERY = 30;
const TARGET_ANSWER_MS = 3000;

export class AdaptiveSlots {
  private size = START;
  private used = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly answerMs: number[] = [];

  get limit(): number {
    return this.size;
  }

  async take(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Gives a slot back after an answer that took `ms`. */
  give(ms: number): void {
    this.answerMs.push(ms);
    if (this.answerMs.length >= RECALIBRATE_EVERY) this.recalibrate();
    this.used--;
    while (this.used < this.size && this.waiting.length > 0) {
      this.used++;
      this.waiting.shift()!();
    }
  }

  private recalibrate(): void {
    const mean = this.answerMs.reduce((a, b) => a + b, 0) / this.answerMs.length;
    this.answerMs.length = 0;
    this.size = nextLimit(this.size, mean);
  }
}

/** aiorpcx's new limit after 30 answers that took `meanMs` on average. */
function nextLimit(size: number, meanMs: number): number {
  const cap = Math.min(size + Math.max(3, size * 0.1), CEILING);
  const floor = Math.max(1, Math.min(size * 0.8, size - 1));
  const target = meanMs > 0 ? Math.max(floor, Math.min(cap, (size * TARGET_ANSWER_MS) / meanMs)) : cap;
  return Math.floor(0.5 + target);
}

/** The limit once `answers` requests were answered, each well within 3 s (as on loopback). */
export function limitAfter(answers: number): number {
  let size = START;
  for (let n = RECALIBRATE_EVERY; n <= answers; n += RECALIBRATE_EVERY) size = nextLimit(size, 1);
  return size;
}
