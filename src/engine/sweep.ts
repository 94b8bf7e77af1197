/**
 * A `--param` sweep: one run per value of a server setting, the server restarted with each value
 * before its run, and restarted with its own settings afterwards whatever happened (a stop, a
 * failed run), so a sweep never leaves a server running with a value the user did not choose.
 */
export interface Sweep {
  server: string;
  name: string;
  values: string[];
  restart(settings: Record<string, string>): Promise<unknown>;
}

/**
 * Runs `measure` once per value; the first exit code other than 0 ends the sweep, and so does a
 * stop (`stopped` gives the code it ends with, null while none was asked for).
 */
export async function runSweep(
  sweep: Sweep,
  measure: (settings: Record<string, string>) => Promise<number>,
  on: { stopped(): number | null; log(line: string): void },
): Promise<number> {
  try {
    for (const value of sweep.values) {
      const stopped = on.stopped();
      if (stopped !== null) return stopped;
      const settings = { [sweep.name]: value };
      on.log(`${sweep.server} restarted with ${sweep.name}=${value}`);
      await sweep.restart(settings);
      const code = await measure(settings);
      if (code !== 0) return code;
    }
    return 0;
  } finally {
    await sweep.restart({}).catch((err) => on.log(`could not restore ${sweep.server}: ${(err as Error).message}`));
  }
}
