/**
 * A series' latency since the run began, kept two ways a Prometheus can read: native histogram
 * buckets (exponential, `schema` 5: each power of two split in 32, so a bucket is 2.2 % wide) and
 * classic cumulative `le` buckets for receivers without native histograms. Fed the HDR histograms
 * of each interval (integer µs); never rebuilt from the start.
 */
import type * as hdr from 'hdr-histogram-js';
import type { JsHistogram } from 'hdr-histogram-js';
import type { BucketSpan, NativeHistogram } from './write-request';

export const NATIVE_SCHEMA = 5;
/** Seconds; a reply faster than this (a 0 µs reading) counts in the zero bucket. */
export const ZERO_THRESHOLD = 1e-6;
/** Seconds, from 100 µs (a loopback reply) to 10 s (past every lab timeout). */
export const CLASSIC_BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The native bucket holding `seconds`: bucket i is (2^((i-1)/2^schema), 2^(i/2^schema)]. */
export function nativeBucketIndex(seconds: number, schema = NATIVE_SCHEMA): number {
  return Math.ceil(Math.log2(seconds) * 2 ** schema);
}

export class LatencyBuckets {
  private readonly native = new Map<number, number>();
  private zero = 0;
  /** Per CLASSIC_BOUNDS entry, then +Inf; not cumulative here. */
  private readonly classic = new Array<number>(CLASSIC_BOUNDS.length + 1).fill(0);
  count = 0;
  sum = 0;

  /** Adds an interval's histogram. Each HDR bucket counts at its highest equivalent value, as HDR's percentiles do. */
  add(histogram: hdr.Histogram): void {
    const iterator = (histogram as JsHistogram).recordedValuesIterator;
    iterator.reset();
    while (iterator.hasNext()) {
      const step = iterator.next();
      const n = step.countAddedInThisIterationStep;
      const seconds = step.valueIteratedTo / 1e6;
      this.count += n;
      this.sum += seconds * n;
      if (seconds <= ZERO_THRESHOLD) this.zero += n;
      else {
        const i = nativeBucketIndex(seconds);
        this.native.set(i, (this.native.get(i) ?? 0) + n);
      }
      const c = CLASSIC_BOUNDS.findIndex((le) => seconds <= le);
      this.classic[c < 0 ? CLASSIC_BOUNDS.length : c] += n;
    }
  }

  /** The native histogram as remote-write encodes it: spans of consecutive buckets, counts as deltas. */
  nativeHistogram(timestamp: number): NativeHistogram {
    const indexes = [...this.native.keys()].sort((a, b) => a - b);
    const spans: BucketSpan[] = [];
    const deltas: number[] = [];
    let previousIndex: number | undefined;
    let previousCount = 0;
    for (const i of indexes) {
      if (previousIndex === undefined) spans.push({ offset: i, length: 1 });
      else if (i === previousIndex + 1) spans[spans.length - 1].length++;
      else spans.push({ offset: i - previousIndex - 1, length: 1 });
      const count = this.native.get(i)!;
      deltas.push(count - previousCount);
      previousCount = count;
      previousIndex = i;
    }
    return {
      countInt: this.count,
      sum: this.sum,
      schema: NATIVE_SCHEMA,
      zeroThreshold: ZERO_THRESHOLD,
      zeroCountInt: this.zero,
      positiveSpans: spans,
      positiveDeltas: deltas,
      timestamp,
    };
  }

  /** Cumulative counts per `le` bound, +Inf last (equal to count). */
  classicBuckets(): Array<{ le: string; count: number }> {
    let running = 0;
    return this.classic.map((n, i) => {
      running += n;
      return { le: i < CLASSIC_BOUNDS.length ? String(CLASSIC_BOUNDS[i]) : '+Inf', count: running };
    });
  }
}
