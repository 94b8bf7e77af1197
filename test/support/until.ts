/**
 * Waits until `holds()` is true, or `withinMs` has passed (the caller's assertion then says what
 * was not reached). For what a test knows will happen but not when: on a busy machine a fixed sleep
 * is sometimes too short.
 */
export async function until(holds: () => boolean, withinMs: number): Promise<void> {
  for (const deadline = Date.now() + withinMs; !holds() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
}
