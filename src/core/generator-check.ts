/**
 * Whether the load generator, not the server, made part of what was measured: the one check that
 * bench, load and wallet load all print and store.
 *
 * It is judged on what it claims — "part of these latencies is the generator's" — so each unit of
 * work is judged against its own latency: the generator's own delay for that unit (a request sent
 * after its intended time, a reply that waited on our busy loop, a wallet arriving late) is at risk
 * when it is more than MATERIAL_SHARE of the latency it is part of, and above the floor of what
 * any client spends on a call. A fixed limit on lag or loop delay instead flags a quiet run at 20
 * requests/s against a server answering in tens of milliseconds, and misses a generator that adds
 * 1 ms to 0.3 ms answers.
 *
 * The verdict names the lowest percentile the generator may have moved: more than 1 % of the
 * units at risk, the p99 may be partly its own; more than 10 %, the p90; more than half, the
 * medians. At 1 % or less no reported percentile up to p99 moved by more than MATERIAL_SHARE.
 */

/** Own delay above this share of a unit's latency distorts that latency. */
export const MATERIAL_SHARE = 0.1;
/** Own delay up to this is every client's per-call work (see bench/client-overhead.ts): never at risk. */
export const NOISE_MS = 0.1;

export function unitAtRisk(ownDelayMs: number, latencyMs: number): boolean {
  return ownDelayMs > NOISE_MS && ownDelayMs > MATERIAL_SHARE * latencyMs;
}

export interface GeneratorVerdict {
  bound: boolean;
  /** Why, in words a reader can check against the figures printed beside it; empty when not bound. */
  reasons: string[];
}

/** The share of units at risk (0 when none was judged): what the verdict is taken on. */
export function shareAtRisk(atRisk: number, units: number): number {
  return units === 0 ? 0 : atRisk / units;
}

/**
 * The verdict from the count of units at risk among those judged. `what` names the units
 * ("requests", "calls", "arrivals") and `delay` says what the generator's own delay was, as a
 * verb phrase ("waited on the generator's own event loop", "went out late").
 */
export function generatorVerdict(atRisk: number, units: number, what: string, delay: string): GeneratorVerdict {
  const share = shareAtRisk(atRisk, units);
  if (share <= 0.01) return { bound: false, reasons: [] };
  const which = share > 0.5 ? 'even the medians' : share > 0.1 ? 'p90 and above' : 'p99 and above';
  return {
    bound: true,
    reasons: [`${atRisk} of ${units} ${what} (${(100 * share).toFixed(1)}%) ${delay} for more than ${MATERIAL_SHARE * 100}% of their latency: ${which} may be partly the generator's own time`],
  };
}

/** Counts units at risk as they end, in O(1) memory. */
export class GeneratorTally {
  atRisk = 0;
  units = 0;

  note(ownDelayMs: number, latencyMs: number): void {
    this.units++;
    if (unitAtRisk(ownDelayMs, latencyMs)) this.atRisk++;
  }
}
