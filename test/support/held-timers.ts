/**
 * Timers a test or a test server holds work back with (a unit that ends later, a delayed answer),
 * all cleared at once when the test or the server ends: one left pending keeps jest's worker
 * alive past its tests ("a worker process has failed to exit gracefully").
 */
export interface HeldTimers {
  /** Runs `fn` after `ms`, unless cleared first. */
  later(fn: () => void, ms: number): void;
  /** Clears every timer not yet run. */
  clear(): void;
}

export function heldTimers(): HeldTimers {
  const timers = new Set<NodeJS.Timeout>();
  return {
    later(fn, ms) {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
    },
    clear() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
