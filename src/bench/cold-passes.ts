/**
 * `bench --cold`: which counted passes are cold and what the runner does before one. The counted
 * passes alternate, cold first: a cold pass starts on servers just restarted on a machine whose
 * page cache was just dropped, over fresh connections; the warm pass after it runs on the same
 * servers and connections, so each warm figure is what the same calls cost once touched. Warm-up
 * passes come before both and are never cold.
 */

/** What makes the measured servers cold before a cold pass: stopped, the page cache dropped, started again on their index. Given by the CLI, which knows how. */
export interface ColdStart {
  restart(): Promise<void>;
  /**
   * The process serving each target, by target name: targets one process serves (Esplora's
   * Electrum port and its REST API) share its cold start, so an address's first touch after a
   * restart is the first call of any of them, stored with the run (`run_servers.setup_json`).
   */
  processes: ReadonlyMap<string, string>;
}

export function isColdPass(pass: number, warmup: number): boolean {
  return pass >= warmup && (pass - warmup) % 2 === 0;
}

/** A run of consecutive passes that go without a restart between them; `cold` when a restart comes first. */
export interface PassSegment {
  first: number;
  count: number;
  cold: boolean;
}

/** The plan's passes cut where a restart comes: the warm-up, then each cold pass with the warm pass after it. Without --cold, one segment. */
export function passSegments(passes: number, warmup: number, cold: boolean): PassSegment[] {
  if (!cold) return [{ first: 0, count: passes, cold: false }];
  const segments: PassSegment[] = warmup > 0 ? [{ first: 0, count: warmup, cold: false }] : [];
  for (let first = warmup; first < passes; first += 2) segments.push({ first, count: Math.min(2, passes - first), cold: true });
  return segments;
}

/** Why a plan cannot be run cold, or null: it needs a warm pass beside a cold one. */
export function coldPlanProblem(passes: number, warmup: number): string | null {
  return passes - warmup >= 2 ? null : `--cold alternates cold and warm counted passes, so it needs at least 2 counted passes: give --passes of at least --warmup + 2 (got --passes ${passes} --warmup ${warmup})`;
}
