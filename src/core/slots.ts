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
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.used++;
  }

  give(): void {
    this.used--;
    this.waiting.shift()?.();
  }

  /** Lets every waiter through now (a stop: each must see it and give its slot back). */
  releaseAll(): void {
    for (const w of this.waiting.splice(0)) w();
  }
}
