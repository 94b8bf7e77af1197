/**
 * k6's stages, shared by the ramping executors: over each stage the target goes linearly from the
 * previous stage's target (or the start) to the stage's own.
 */
import type { Stage } from '../core/load-types';

/** The target at `tMs` of a ramp starting from `start` (linear within each stage). */
export function rampValueAt(stages: readonly Stage[], start: number, tMs: number): number {
  let from = start;
  let at = 0;
  for (const s of stages) {
    if (tMs < at + s.durationMs) return from + ((s.target - from) * (tMs - at)) / s.durationMs;
    at += s.durationMs;
    from = s.target;
  }
  return from;
}

export function stagesLengthMs(stages: readonly Stage[]): number {
  return stages.reduce((t, s) => t + s.durationMs, 0);
}

/** What is wrong with a ramp given as `option`, with `startOption` as its start: every problem. */
export function rampProblems(option: string, stages: readonly Stage[], startOption: string, start: number): string[] {
  const problems: string[] = [];
  if (stages.length === 0) problems.push(`${option}: no stages`);
  for (const s of stages) {
    if (!(s.durationMs > 0) || !Number.isFinite(s.target) || s.target < 0) problems.push(`${option}: stage ${s.durationMs}ms:${s.target} needs a positive duration and a target >= 0`);
  }
  if (!(start >= 0) || !Number.isFinite(start)) problems.push(`${startOption} must be >= 0, got ${start}`);
  return problems;
}

