/**
 * A run's schedule clock: hrtime as ns since the run's start, in plain numbers (exact to the ns
 * for 104 days). BigInt arithmetic per unit of work would cost more than recording it.
 */
export class RunClock {
  private lastAt = -1n;
  private lastNs = 0;

  constructor(readonly t0: bigint) {}

  now(): number {
    return Number(process.hrtime.bigint() - this.t0);
  }

  /** `at` on this clock. Replies read from one chunk share one hrtime: the last conversion is kept. */
  of(at: bigint): number {
    if (at !== this.lastAt) {
      this.lastAt = at;
      this.lastNs = Number(at - this.t0);
    }
    return this.lastNs;
  }
}
