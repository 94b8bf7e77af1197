/**
 * What a server says it is doing while it builds its index, read from its own log: a line that
 * matches one of its rules (given with the server; the lab's are in src/lab/servers/) starts that
 * phase, which lasts until the next phase starts or the index is at the node's tip. Lines are
 * timed when we read them (the log is followed every 50 ms), so every server's phases are on one
 * clock, whether or not its log has timestamps (ElectrumX's has none). Everything before the first
 * matching line is "start-up".
 */

import type { Phase } from '../core/index-builds';
/** A log line's pattern, and the phase such a line starts. */
export type PhaseRules = Array<[RegExp, string]>;

export interface TimedLine {
  atMs: number; // ms since the server was started
  line: string;
}

/** The phases of one build, from start (0) to `readyMs`; consecutive lines of one phase merge. */
export function phasesOf(rules: PhaseRules, lines: TimedLine[], readyMs: number): Phase[] {
  const phases: Phase[] = [{ name: 'start-up', startMs: 0, endMs: readyMs }];
  for (const { atMs, line } of lines) {
    if (atMs > readyMs) break;
    const rule = rules.find(([re]) => re.test(line));
    if (!rule || rule[1] === phases[phases.length - 1].name) continue;
    phases[phases.length - 1].endMs = atMs;
    phases.push({ name: rule[1], startMs: atMs, endMs: readyMs });
  }
  return phases.filter((p) => p.endMs > p.startMs || p === phases[phases.length - 1]);
}

/** Follows a log file from its start, timing each new complete line as it is read. */
export class LogFollower {
  private offset = 0;
  private partial = '';
  private timer: NodeJS.Timeout | undefined;
  readonly lines: TimedLine[] = [];

  constructor(
    private readonly file: string,
    private readonly t0: number,
    private readonly read: (file: string, offset: number) => Buffer | null,
  ) {}

  start(everyMs = 50): void {
    this.timer = setInterval(() => this.poll(), everyMs);
  }

  poll(): void {
    const chunk = this.read(this.file, this.offset);
    if (!chunk || chunk.length === 0) return;
    this.offset += chunk.length;
    const text = this.partial + chunk.toString('utf8');
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    const at = Date.now() - this.t0;
    for (const line of parts) this.lines.push({ atMs: at, line });
  }

  stop(): void {
    clearInterval(this.timer);
    this.poll();
  }
}
