/**
 * Sleeps that end at their time or all at once when something happens: a virtual user's pause
 * that a stop must cut short, a caller waiting for a connection that a freed slot must wake.
 */
export class WakeableSleeps {
  private readonly sleeping = new Set<() => void>();

  /** Resolves after `ms`, or at the next wakeAll(), whichever comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleeping.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleeping.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.sleeping]) wake();
  }
}
