/**
 * Waits until `check()` holds; fails naming `what` if it has not within `withinMs`. For what a
 * test knows will happen but not when: on a busy machine a fixed sleep is sometimes too short.
 */
export async function until(what: string, check: () => boolean, withinMs = 30_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
