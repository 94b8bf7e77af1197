/**
 * The load generator watching itself: if our own event loop stalls while a call is in flight, that
 * call's latency includes our stall, not only the server's time. Recorded with every run and shown
 * beside its results.
 *
 * A stall between calls (a batch of samples written to SQLite, the progress bar, GC after a call
 * ended) cannot touch a sequential measurement, so the warning looks only at stalls that overlap
 * calls in flight: while any call is in flight a 1 ms probe timer runs, and how late it fires is the
 * stall the calls in flight suffered. The loop's overall delay (perf_hooks) is kept for context.
 */
import { createHistogram, monitorEventLoopDelay, IntervalHistogram, RecordableHistogram } from 'node:perf_hooks';

interface Distribution {
  p50: number;
  p99: number;
  max: number;
}

export interface SelfCheck {
  /** Stalls of the loop while calls were in flight, beyond the probe's 1 ms timer granularity. */
  inFlightStallMs: Distribution & { probes: number; over1ms: number };
  /** The loop's delay over the whole run, in flight or not (context). */
  eventLoopDelayMs: Distribution;
  cpu: { userMs: number; systemMs: number; wallMs: number; utilisation: number };
}

// perf_hooks' monitor records whole timer intervals, resolution included: we report only the excess.
const LOOP_RESOLUTION_MS = 2;
const PROBE_MS = 1;
const PROBE_NS = BigInt(PROBE_MS * 1e6);

export class SelfMonitor {
  private readonly loop: IntervalHistogram;
  private readonly stalls: RecordableHistogram = createHistogram();
  private readonly cpuStart = process.cpuUsage();
  private readonly wallStart = process.hrtime.bigint();
  private inFlight = 0;
  private probe: NodeJS.Timeout | undefined;
  private probeDue = 0n;
  private probes = 0;
  private over1ms = 0;

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
  }

  callStarted(): void {
    if (this.inFlight++ === 0) this.armProbe();
  }

  callEnded(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight > 0 || !this.probe) return;
    // The last call ended: a probe already overdue measured a stall the call lived through (its
    // reply can be handled before the timers phase); one not yet due must not time what follows.
    clearTimeout(this.probe);
    this.probe = undefined;
    if (process.hrtime.bigint() > this.probeDue) this.recordProbe();
  }

  private armProbe(): void {
    this.probeDue = process.hrtime.bigint() + PROBE_NS;
    this.probe = setTimeout(() => this.onProbe(), PROBE_MS);
    this.probe.unref();
  }

  private onProbe(): void {
    this.probe = undefined;
    this.recordProbe();
    if (this.inFlight > 0) this.armProbe();
  }

  private recordProbe(): void {
    const lateNs = process.hrtime.bigint() - this.probeDue;
    // libuv's timers have 1 ms granularity: lateness up to that is the timer, not a stall.
    const excessNs = lateNs - PROBE_NS;
    this.probes++;
    this.stalls.record(excessNs > 0n ? Number(excessNs) : 1);
    if (excessNs > PROBE_NS) this.over1ms++;
  }

  stop(): SelfCheck {
    this.loop.disable();
    if (this.probe) clearTimeout(this.probe);
    const cpu = process.cpuUsage(this.cpuStart);
    const wallMs = Number(process.hrtime.bigint() - this.wallStart) / 1e6;
    const round = (ms: number) => Math.max(0, Math.round(ms * 1000) / 1000);
    const loopMs = (ns: number) => round(ns / 1e6 - LOOP_RESOLUTION_MS);
    const stallMs = (ns: number) => (ns <= 1 ? 0 : round(ns / 1e6));
    const h = this.loop;
    const has = h.count > 0;
    const s = this.stalls;
    const hasStalls = s.count > 0;
    return {
      inFlightStallMs: {
        p50: hasStalls ? stallMs(s.percentile(50)) : 0,
        p99: hasStalls ? stallMs(s.percentile(99)) : 0,
        max: hasStalls ? stallMs(s.max) : 0,
        probes: this.probes,
        over1ms: this.over1ms,
      },
      eventLoopDelayMs: {
        p50: has ? loopMs(h.percentile(50)) : 0,
        p99: has ? loopMs(h.percentile(99)) : 0,
        max: has ? loopMs(h.max) : 0,
      },
      cpu: {
        userMs: Math.round(cpu.user / 1000),
        systemMs: Math.round(cpu.system / 1000),
        wallMs: Math.round(wallMs),
        utilisation: wallMs > 0 ? Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 1000) / 1000 : 0,
      },
    };
  }
}

/**
 * The warning: the generator's own stalls during calls in flight, at p99, above 10 % of the fastest
 * median latency measured: then part of what was measured may be the generator itself.
 */
export function selfCheckWarning(check: SelfCheck, medianLatencyNs: number | null): string | null {
  if (medianLatencyNs === null || medianLatencyNs <= 0) return null;
  const medianMs = medianLatencyNs / 1e6;
  const stall = check.inFlightStallMs;
  if (stall.p99 <= 0.1 * medianMs) return null;
  return (
    `warning: the generator's own event loop stalled while calls were in flight (p99 ${stall.p99} ms, max ${stall.max} ms, ` +
    `${stall.over1ms} of ${stall.probes} probes over 1 ms), above 10% of the fastest median latency measured ` +
    `(${medianMs.toFixed(3)} ms): part of what was measured may be the generator itself`
  );
}
