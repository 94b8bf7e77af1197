/**
 * Durations as people type them (k6's `500ms`, `30s`, `2m`, `1h`) and read them, and the one
 * estimate of time left that every view of a run quotes. cli-progress rounds the seconds of its
 * ETA to a multiple of 5 after splitting off the minutes, which prints "2m60s"; here the whole
 * duration is rounded first, then split.
 */

/** `500ms`, `30s`, `2m`, `1h`, or a bare number of seconds. */
export function parseDurationMs(text: string, what: string): number {
  const m = /^\s*([0-9]*\.?[0-9]+)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) throw new Error(`${what}: cannot parse duration ${JSON.stringify(text)}; expected e.g. 500ms, 30s, 2m, 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * unit);
}

/** `45s`, `2m05s`, `1h03m`: rounded to the unit shown last, so no part ever reads 60. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  if (seconds < 3600) {
    const s = Math.round(seconds);
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  }
  const m = Math.round(seconds / 60);
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * Time left from the average rate since the start (not a moving window): the bar's ETA and the
 * projected total are the same figure seen at different moments, so they never contradict.
 */
export class RemainingTime {
  constructor(
    private readonly startedAtMs: number,
    /** Units already done before this run started (a resumed run): not part of its rate. */
    private readonly base: number,
  ) {}

  /** Milliseconds left at `nowMs`, or null before anything was done. */
  remainingMs(completed: number, total: number, nowMs: number): number | null {
    const done = completed - this.base;
    const elapsed = nowMs - this.startedAtMs;
    if (done <= 0 || elapsed <= 0) return null;
    return Math.max(0, total - completed) * (elapsed / done);
  }
}
