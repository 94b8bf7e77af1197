/**
 * Moments an open-model pacer can spare: the generator's bookkeeping that need not run at once
 * (closing a second: encoding its histograms, adding them to the totals, storing and showing it)
 * waits for one, so that it does not run while an answer is on its way and make it wait to be
 * read, which would add our own time to the latency measured. A moment is spare when no request
 * is in flight and the next send is far enough off (arrival-driver.ts gives them).
 *
 * Work never waits long for one: with no pacer giving moments (a closed model, the drain after a
 * schedule, a bench) it runs at the next loop turn as before, and a pacer that is never idle (a
 * slow server, a high rate) lets it run after MAX_DEFER_MS anyway.
 */

/** How long a step waits for a spare moment at most. */
export const MAX_DEFER_MS = 20;

const waiting: Array<{ go: () => void; sinceMs: number }> = [];
/** Pacers running that give spare moments. */
let givers = 0;
/** One timer lets go of the steps that waited MAX_DEFER_MS (not one per step: each would wake the loop). */
let fallback: NodeJS.Timeout | undefined;

/** Resolves in a spare moment (or soon, when none comes): await it between steps of deferrable work. */
export function spareMoment(): Promise<void> {
  if (givers === 0) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((go) => {
    waiting.push({ go, sinceMs: performance.now() });
    fallback ??= setTimeout(letGoOverdue, MAX_DEFER_MS).unref();
  });
}

function letGoOverdue(): void {
  fallback = undefined;
  const now = performance.now();
  // A timer may fire up to 1 ms early: that is soon enough.
  while (waiting.length > 0 && now - waiting[0].sinceMs >= MAX_DEFER_MS - 1) waiting.shift()!.go();
  if (waiting.length > 0) fallback = setTimeout(letGoOverdue, MAX_DEFER_MS).unref();
}

/**
 * Gives the oldest waiting step its moment: it runs at the end of the caller's callback (a
 * microtask), so the caller must go back to the loop before it sends or blocks. True if one waited.
 */
export function giveSpareMoment(): boolean {
  const next = waiting.shift();
  if (!next) return false;
  next.go();
  return true;
}

/** A pacer starts (or stops) giving spare moments; work queued while none gives any is let go. */
export function givingSpareMoments(on: boolean): void {
  givers += on ? 1 : -1;
  if (givers === 0) while (giveSpareMoment());
}
