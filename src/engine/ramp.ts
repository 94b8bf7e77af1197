/**
 * k6's stages, shared by the ramping executors: over each stage the target goes linearly from the
 * previous stage's target (or the start) to the stage's own.
 */
import type { Stage } from '../core/load-types';
import { parseDurationMs } from '../core/duration';

/** Parses `30s:100,2m:2000,30s:0` (k6's stages: duration:target), `what` naming the input in errors. */
export function parseStages(text: string, what: string): Stage[] {
  const stages = text.split(',').map((part) => {
    const m = /^\s*([0-9.]+(?:ms|s|m|h))\s*:\s*([0-9.]+)\s*$/.exec(part);
    if (!m) throw new Error(`${what}: cannot parse stage ${JSON.stringify(part)}; expected DURATION:TARGET, e.g. 30s:100`);
    const durationMs = parseDurationMs(m[1], what);
    const target = Number(m[2]);
    if (!(durationMs > 0) || !Number.isFinite(target) || target < 0) throw new Error(`${what}: stage ${JSON.stringify(part)} needs a positive duration and a target >= 0`);
    return { durationMs, target };
  });
  if (stages.length === 0) throw new Error(`${what}: no stages`);
  return stages;
}

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

