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
    const cap = Math.min(this.size + Math.max(3, this.size * 0.1), CEILING);
    const floor = Math.max(1, Math.min(this.size * 0.8, this.size - 1));
    const target = mean > 0 ? Math.max(floor, Math.min(cap, (this.size * TARGET_ANSWER_MS) / mean)) : cap;
    this.size = Math.floor(0.5 + target);
  }
}
