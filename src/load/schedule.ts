/** k6's duration and stage syntax, as the load options give it (the pacing itself is src/engine/executors/). */
import type { Stage } from '../core/load-types';

/** Parses `30s:100,2m:2000,30s:0` (k6's stages: duration:target). */
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

/** `500ms`, `30s`, `2m`, `1h`, or a bare number of seconds. */
export function parseDurationMs(text: string, what: string): number {
  const m = /^\s*([0-9]*\.?[0-9]+)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) throw new Error(`${what}: cannot parse duration ${JSON.stringify(text)}; expected e.g. 500ms, 30s, 2m, 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * unit);
}
