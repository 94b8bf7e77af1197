/** Waits until `done`, at most `maxMs`; a stop ends the wait (a stop takes at most 2 s). */
export async function until(done: () => boolean, maxMs: number, stopped: () => boolean): Promise<void> {
  const end = Date.now() + maxMs;
  while (!done() && !stopped() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}
