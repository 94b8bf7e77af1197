/**
 * When each request of an open-model run is meant to go out. The schedule is fixed before the run
 * and never waits for the server: a stalled server shows up as latency measured from these
 * intended times, not as a pause in sending (coordinated omission).
 *
 * A ramp (k6's ramping-arrival-rate) goes linearly from one target rate to the next over each
 * stage, so the number of requests due by time t is the integral of the rate; the k-th request is
 * due where that integral reaches k.
 */
import type { LoadModel, Stage } from '../core/load-types';

/** The model's length in ms: the stages' total, or the given duration for constant models. */
export function modelDurationMs(model: LoadModel, durationMs: number): number {
  return model.kind === 'stages' || model.kind === 'vus-stages' ? model.stages.reduce((t, s) => t + s.durationMs, 0) : durationMs;
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

/** Intended requests per second at `tMs` (open models). */
export function targetRateAt(model: LoadModel, tMs: number): number | null {
  if (model.kind === 'rate') return model.rate;
  if (model.kind === 'stages') return rampValueAt(model.stages, model.startRate, tMs);
  return null;
}

/** Virtual clients active at `tMs` (closed models). */
export function vusAt(model: LoadModel, tMs: number): number | null {
  if (model.kind === 'vus') return model.vus;
  if (model.kind === 'vus-stages') return Math.round(rampValueAt(model.stages, model.startVus, tMs));
  return null;
}

/**
 * Intended send offsets in ns from the run's start, in order, for an open model over `durationMs`.
 * `shard` thins the schedule for one shard of a larger test: shard I of N takes every request
 * whose global index is ≡ I−1 (mod N), so the shards together send the whole schedule.
 */
export function* arrivalOffsetsNs(model: LoadModel, durationMs: number, shard?: { index: number; count: number }): Generator<number> {
  const cursor = new ArrivalCursor(model, durationMs, shard);
  for (let t = cursor.next(); t !== Infinity; t = cursor.next()) yield t;
}

/**
 * The same offsets one at a time, Infinity after the last: what the open model's driver reads,
 * once per request (a generator's resumption and result object per request cost more).
 */
export class ArrivalCursor {
  private readonly endNs: number;
  private readonly shard: { index: number; count: number };
  private k = 0; // global index of the next request (all shards)
  // A ramp, stage by stage: N(t) = r0·t + (r1 − r0)·t² / (2T) requests within a stage, solved for t.
  private stage = 0;
  private stageStartNs = 0;
  private r0 = 0;
  private before = 0; // requests due before this stage (fractional)

  constructor(
    private readonly model: LoadModel,
    durationMs: number,
    shard: { index: number; count: number } = { index: 1, count: 1 },
  ) {
    this.endNs = durationMs * 1e6;
    this.shard = shard;
    if (model.kind === 'stages') this.r0 = model.startRate;
  }

  next(): number {
    for (;;) {
      const k = this.k++;
      const t = this.offsetOf(k);
      if (t === Infinity || t >= this.endNs) return (this.k = Infinity);
      if (k % this.shard.count === this.shard.index - 1) return t;
    }
  }

  /** When the k-th request (in order: k only grows) is due, or Infinity past the schedule's end. */
  private offsetOf(k: number): number {
    const { model } = this;
    if (model.kind === 'rate') return model.rate > 0 ? k * (1e9 / model.rate) : Infinity;
    if (model.kind !== 'stages') return Infinity;
    for (;;) {
      const s = model.stages[this.stage];
      if (!s) return Infinity;
      const T = s.durationMs / 1000;
      const r1 = s.target;
      const inStage = ((this.r0 + r1) / 2) * T;
      if (k < this.before + inStage) {
        const n = k - this.before; // requests into this stage
        const a = (r1 - this.r0) / (2 * T);
        const t = Math.abs(a) < 1e-12 ? n / this.r0 : (-this.r0 + Math.sqrt(Math.max(0, this.r0 * this.r0 + 4 * a * n))) / (2 * a);
        return this.stageStartNs + t * 1e9;
      }
      this.before += inStage;
      this.stageStartNs += s.durationMs * 1e6;
      this.r0 = r1;
      this.stage++;
    }
  }
}

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
