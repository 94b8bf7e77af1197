/**
 * The generator's event-loop delay, probed only while one of its requests awaits an answer: that
 * is when a busy loop adds its own time to what is measured (an answer read late is timed late).
 * A send made late is measured apart, as each request's scheduling lag.
 *
 * perf_hooks' monitorEventLoopDelay wakes the loop every millisecond for the whole run: two of
 * them cost ~3 % of a core here (bench/load-generator.ts cost), more than everything else an
 * open model at 50 requests/s does, and an idle loop has nothing to delay. So the probe is a
 * 1 ms timer armed when the first request goes out and cancelled when the last answer is in;
 * while requests are in flight it samples as that monitor did, recording the whole time from one
 * tick to the next (the period included: a loop that is never late reads ~1.0–1.1 ms). A second
 * with no request in flight for a whole period has no sample and reads 0.
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { LoadOutcome } from '../core/load-types';
import type { RequestSink } from './sinks/request-sink';

/** The probe's period: part of every reading, and below it a reading can tell nothing. */
export const LOOP_PROBE_PERIOD_MS = 1;

const nowNs = (): number => Number(process.hrtime.bigint());

/** Watches a run's requests (as a sink: opened and completed) and probes the loop while any is in flight. */
export class LoopDelay<M extends string = string> implements RequestSink<M> {
  private inFlight = 0;
  /** Counts the stretches of time with requests in flight: a tick of an ended one does nothing. */
  private episode = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastNs = 0;
  private stopped = false;
  /** Readings since the last second closed, and over the whole run (ns). */
  private readonly second: RecordableHistogram = createHistogram();
  private readonly whole: RecordableHistogram = createHistogram();

  opened(): void {
    if (this.inFlight++ === 0) this.arm();
  }

  sentOne(): void {}

  droppedOne(): void {}

  completed(_method: M, _outcome: LoadOutcome, _intendedNs: number, _actualNs: number, _endNs: number, _bytes: number, wasOpened = true): void {
    // The last answer in: the probe's tick is left to lapse (its call does nothing), not cleared:
    // clearing costs more than the call, and a cleared timer still wakes the loop at its time.
    if (wasOpened && --this.inFlight === 0) this.episode++;
  }

  /** The p99 of the second's readings in µs (0 with none), and a new second begun. */
  closeSecond(): number {
    const p99Us = this.second.count > 0 ? Math.round(this.second.percentile(99) / 1000) : 0;
    if (this.second.count > 0) this.whole.add(this.second);
    this.second.reset();
    return p99Us;
  }

  /** The run's p99 in ms (0 with no reading). */
  get p99Ms(): number {
    const all = createHistogram();
    all.add(this.whole);
    if (this.second.count > 0) all.add(this.second);
    return all.count > 0 ? all.percentile(99) / 1e6 : 0;
  }

  /** No more probing: what is still in flight is the run's to cut short. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.stopped) return;
    this.lastNs = nowNs();
    const episode = this.episode;
    this.timer = setTimeout(() => this.tick(episode), LOOP_PROBE_PERIOD_MS);
  }

  /** A tick of the probe armed in `episode` (requests in flight without a break): of an ended one, it does nothing. */
  private tick(episode: number): void {
    if (episode !== this.episode || this.stopped) return;
    this.timer = undefined;
    const now = nowNs();
    this.second.record(Math.max(1, now - this.lastNs));
    this.lastNs = now;
    this.timer = setTimeout(() => this.tick(episode), LOOP_PROBE_PERIOD_MS);
  }
}
