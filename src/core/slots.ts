/** At most `size` holders at once; the others wait in arrival order. */
export class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async take(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return;
    }
    // A slot given back is handed to the first waiter directly (give() does not free it): a caller
    // going from give() straight back to take() in the same turn must not slip in ahead of it.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }

  /** Lets every waiter through now (a stop: each must see it and give its slot back). */
  releaseAll(): void {
    const all = this.waiting.splice(0);
    this.used += all.length;
    for (const w of all) w();
  }
}
