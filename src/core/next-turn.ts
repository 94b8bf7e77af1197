/**
 * A turn of the event loop: what a long piece of work awaits between its steps so that signals,
 * timers and sockets are served meanwhile. A resolved promise is not enough: its continuation runs
 * as a microtask, before the loop gets to anything else, so a chain of them holds the loop (a stop
 * signal waits for the whole chain).
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
