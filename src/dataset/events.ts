/**
 * What a build tells the outside world while it runs. The builder only emits; the terminal view
 * (progress.ts), a benchmark or a test listens, and the builder never learns which.
 */
import { EventEmitter } from 'node:events';

export type Phase = 'scan' | 'count';

export interface PhaseTick {
  phase: Phase;
  done: number;
  total: number;
  /** Phase-specific counters shown beside the bar (candidates found, kept so far …). */
  info: Record<string, number>;
}

export interface BuildEventMap {
  start: [PhaseTick];
  progress: [PhaseTick];
  end: [PhaseTick & { elapsedMs: number }];
  note: [string];
}

export class BuildEvents extends EventEmitter<BuildEventMap> {}
