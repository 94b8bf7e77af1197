/**
 * The load generator watching itself: if our own event loop is busy when a reply arrives, the
 * reply waits, and the call's latency includes our time, not only the server's. Recorded with
 * every run and shown beside its results.
 *
 * A stall between calls (a batch of samples written to SQLite, the progress bar, GC after a call
 * ended) cannot touch a sequential measurement, so the warning looks only at what overlaps a
 * measured call: for each call, the client reads how long the loop was busy between the call's
 * write and its reply's arrival (libuv's own active-time counter, in microseconds; idle time in
 * epoll does not count, so a machine that deschedules us while we wait does not either). That is
 * an upper bound on how long the reply could have waited for us. The loop's overall delay
 * (perf_hooks, timer-based, 2 ms resolution) is kept for context.
 */
import { createHistogram, monitorEventLoopDelay, IntervalHistogram, RecordableHistogram } from 'node:perf_hooks';
import { generatorVerdict, unitAtRisk } from '../core/generator-check';

interface Distribution {
  p50: number;
  p99: number;
  max: number;
}

export interface SelfCheck {
  /**
   * Per measured call: ms our loop was busy between its write and its reply's arrival; `atRisk`
   * counts the calls for which that was more than 10 % of their own latency.
   */
  inFlightStallMs: Distribution & { calls: number; over1ms: number; atRisk: number };
  /** The loop's delay over the whole run, in flight or not (context). */
  eventLoopDelayMs: Distribution;
  cpu: { userMs: number; systemMs: number; wallMs: number; utilisation: number };
}

// perf_hooks' monitor records whole timer intervals, resolution included: we report only the excess.
const LOOP_RESOLUTION_MS = 2;

export class SelfMonitor {
  private readonly loop: IntervalHistogram;
  /** Busy time per call in µs (+1: the histogram takes values >= 1). */
  private readonly busy: RecordableHistogram = createHistogram();
  private readonly cpuStart = process.cpuUsage();
  private readonly wallStart = process.hrtime.bigint();
  private over1ms = 0;
  private atRisk = 0;

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
  }

  /** One measured call's loop-busy time (CallOutcome.loopBusyMs) beside its latency. */
  recordCall(loopBusyMs: number | undefined, latencyNs: bigint): void {
    if (loopBusyMs === undefined) return;
    this.busy.record(Math.max(0, Math.round(loopBusyMs * 1000)) + 1);
    if (loopBusyMs > 1) this.over1ms++;
    // Busy time up to the noise floor is the client's own per-call work after the write (every
    // client has it); above it, the loop was doing something else while a reply could have waited.
    if (unitAtRisk(loopBusyMs, Number(latencyNs) / 1e6)) this.atRisk++;
  }

  stop(): SelfCheck {
    this.loop.disable();
    const cpu = process.cpuUsage(this.cpuStart);
    const wallMs = Number(process.hrtime.bigint() - this.wallStart) / 1e6;
    const round = (ms: number) => Math.max(0, Math.round(ms * 1000) / 1000);
    const loopMs = (ns: number) => round(ns / 1e6 - LOOP_RESOLUTION_MS);
    const busyMs = (us: number) => round((us - 1) / 1000);
    const h = this.loop;
    const has = h.count > 0;
    const b = this.busy;
    const hasCalls = b.count > 0;
    return {
      inFlightStallMs: {
        p50: hasCalls ? busyMs(b.percentile(50)) : 0,
        p99: hasCalls ? busyMs(b.percentile(99)) : 0,
        max: hasCalls ? busyMs(b.max) : 0,
        calls: b.count,
        over1ms: this.over1ms,
        atRisk: this.atRisk,
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

/** The one generator check (src/core/generator-check.ts), over the calls' in-flight stalls. */
export function selfCheckWarning(check: SelfCheck): string | null {
  const s = check.inFlightStallMs;
  const verdict = generatorVerdict(s.atRisk, s.calls, 'counted calls', "waited on the generator's own event loop");
  return verdict.bound ? `warning: ${verdict.reasons.join('; ')} (busy p99 ${s.p99} ms, max ${s.max} ms)` : null;
}
