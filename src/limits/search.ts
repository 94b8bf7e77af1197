/**
 * Where a limit lies, by probing as few sizes as it takes: doubling until the server fails (or the
 * largest size allowed is served), then halving the gap between the largest size served and the
 * smallest that failed. Sizes are steps 0..steps-1 of an ascending scale (a count, bytes in steps,
 * or the dataset's addresses by history size); a limit is taken to be monotone (what fails at a
 * size fails above it).
 */
import type { PastLimit } from '../core/server-limits';

/** A probe at one step: served normally (and, where it matters, how many bytes it answered), or what the server did. */
export type ProbeResult = { ok: true; bytes?: number } | { ok: false; past: PastLimit };

export interface SearchResult {
  /** The largest step served; null when the first step already failed. */
  servedStep: number | null;
  /** What the server answered at the served step, in bytes (when the probe said). */
  servedBytes?: number;
  /** The smallest step that failed, and how; null when every step tried was served. */
  failedStep: number | null;
  past: PastLimit | null;
  /** The largest step probed. */
  triedStep: number;
  probes: number;
  /** Whether the search ended before it was settled (out of probes or time, or stopped). */
  cutShort: boolean;
}

export interface SearchBounds {
  steps: number;
  /** At most this many probes. */
  maxProbes: number;
  /** Asked before each probe: true ends the search where it is. */
  stop: () => boolean;
}

export async function searchLimit(probe: (step: number) => Promise<ProbeResult>, bounds: SearchBounds): Promise<SearchResult> {
  let served: number | null = null;
  let servedBytes: number | undefined;
  let failed: number | null = null;
  let past: PastLimit | null = null;
  let tried = 0;
  let probes = 0;
  const at = async (step: number): Promise<boolean | undefined> => {
    if (probes >= bounds.maxProbes || bounds.stop()) return undefined;
    probes++;
    tried = Math.max(tried, step);
    const r = await probe(step);
    if (r.ok) {
      served = step;
      servedBytes = r.bytes;
      return true;
    }
    failed = step;
    past = r.past;
    return false;
  };
  const last = bounds.steps - 1;
  for (let step = 0; ; step = Math.min(last, step * 2 + 1)) {
    const ok = await at(step);
    if (ok === undefined) return { servedStep: served, servedBytes, failedStep: failed, past, triedStep: tried, probes, cutShort: true };
    if (!ok || step === last) break;
  }
  while (failed !== null && (failed as number) - (served ?? -1) > 1) {
    const ok = await at(Math.floor(((served ?? -1) + (failed as number)) / 2));
    if (ok === undefined) return { servedStep: served, servedBytes, failedStep: failed, past, triedStep: tried, probes, cutShort: true };
  }
  return { servedStep: served, servedBytes, failedStep: failed, past, triedStep: tried, probes, cutShort: false };
}
