/**
 * The load generator watching itself: if our own event loop stalls, the latencies we record
 * include our stall, not the server's. Recorded with every run and shown beside its results.
 */
import { monitorEventLoopDelay, IntervalHistogram } from 'node:perf_hooks';

export interface SelfCheck {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  cpu: { userMs: number; systemMs: number; wallMs: number; utilisation: number };
}

// The histogram records whole timer intervals, resolution included: we report only the excess.
const RESOLUTION_MS = 2;

export class SelfMonitor {
  private readonly histogram: IntervalHistogram;
  private readonly cpuStart = process.cpuUsage();
  private readonly wallStart = process.hrtime.bigint();

  constructor() {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
  }

  stop(): SelfCheck {
    this.histogram.disable();
    const cpu = process.cpuUsage(this.cpuStart);
    const wallMs = Number(process.hrtime.bigint() - this.wallStart) / 1e6;
    const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 1000) / 1000);
    const h = this.histogram;
    const has = h.count > 0;
    return {
      eventLoopDelayMs: {
        p50: has ? ms(h.percentile(50)) : 0,
        p99: has ? ms(h.percentile(99)) : 0,
        max: has ? ms(h.max) : 0,
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

/** The warning the issue asks for: our own p99 stall above 10 % of the median we measured. */
export function selfCheckWarning(check: SelfCheck, medianLatencyNs: number | null): string | null {
  if (medianLatencyNs === null || medianLatencyNs <= 0) return null;
  const medianMs = medianLatencyNs / 1e6;
  if (check.eventLoopDelayMs.p99 <= 0.1 * medianMs) return null;
  return (
    `warning: the generator's own event-loop delay p99 (${check.eventLoopDelayMs.p99} ms) exceeds 10% of the ` +
    `fastest median latency measured (${medianMs.toFixed(3)} ms): part of what was measured may be the generator itself`
  );
}
