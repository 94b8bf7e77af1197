/**
 * What the dashboard shows of a run, kept from the intervals alone as they close: per server one
 * point per second and running totals (counts, errors by category, the whole run's latency
 * percentiles from the intervals' histograms added up). It is rebuilt from what the engine
 * stores, not from the summary, so the page's final figures are a second count of the summary's.
 */
import * as hdr from 'hdr-histogram-js';
import type { AnyIntervalRecord } from '../../../core/load-types';
import { histogramLine } from '../../../core/percentile-line';
import { newHistogram } from '../../sinks/hdr-intervals';
import { secondOf, type Second } from '../second';
import type { LiveState, PlanProgress, RunContext, ThresholdState, WalletsLive } from '../output';

export interface Point {
  second: number;
  /** Epoch ms of the second's end. */
  at: number;
  target: number | null;
  vus: number | null;
  sent: number;
  answered: number;
  ok: number;
  errors: number;
  dropped: number;
  inFlight: number;
  /** That second's ok replies, ms; null when none. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
  lagP99: number | null;
  loopDelayP99: number;
  /** The generator process's CPU over that second, in cores (1 = one core busy). */
  cpu: number;
  /** Wallet load: wallets held at the second's end. */
  held: number | null;
}

/** One kind of unit's figures over the whole run so far (a method's requests, a wallet sync). */
export interface UnitTotals {
  ok: number;
  errors: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

export interface ServerView {
  server: string;
  points: Point[];
  totals: {
    sent: number;
    answered: number;
    ok: number;
    dropped: number;
    errors: Record<string, number>;
    latencyMs: { p50: number | null; p90: number | null; p99: number | null; max: number | null };
  };
  /** By method (or unit), in the order first seen: request kinds or syncs are not mixed up here. */
  units: Record<string, UnitTotals>;
  /** A planned run (bench): how far through its plan it is. */
  progress?: PlanProgress;
  /** Wallet load: the wallets held and the notifications judged so far. */
  wallets?: WalletsLive;
}

export interface RunView {
  run: number;
  shard: string | null;
  title: string;
  startedAt: number;
  /** 'running' until the end, then the run's status (completed, interrupted, aborted, failed). */
  status: string;
  servers: ServerView[];
  thresholds: ThresholdState[];
}

const round = (ms: number | null): number | null => (ms === null ? null : Math.round(ms * 1000) / 1000);

export class RunViewKeeper {
  readonly view: RunView;
  private readonly latencies = new Map<string, hdr.Histogram>();
  /** Per server, per unit: ok latencies of the whole run so far. */
  private readonly unitLatencies = new Map<string, Map<string, hdr.Histogram>>();
  private cpuMark = process.cpuUsage();
  private cpuMarkAt = performance.now();

  constructor(title: string) {
    this.view = { run: 0, shard: null, title, startedAt: Date.now(), status: 'running', servers: [], thresholds: [] };
  }

  start(context: RunContext): void {
    this.view.run = context.run;
    this.view.shard = context.shard;
    this.view.startedAt = Date.now();
    this.cpuMark = process.cpuUsage();
    this.cpuMarkAt = performance.now();
  }

  /** Adds a closed second; returns the server's view as it now stands. */
  add(r: AnyIntervalRecord, live: LiveState | undefined): { server: ServerView; point: Point } {
    let server = this.view.servers.find((s) => s.server === r.server);
    if (!server) {
      server = { server: r.server, points: [], totals: { sent: 0, answered: 0, ok: 0, dropped: 0, errors: {}, latencyMs: { p50: null, p90: null, p99: null, max: null } }, units: {} };
      this.view.servers.push(server);
    }
    if (live?.progress) server.progress = live.progress;
    if (live?.wallets) server.wallets = live.wallets;
    let whole = this.latencies.get(r.server);
    if (!whole) this.latencies.set(r.server, (whole = newHistogram()));
    const { answered, ok, errors: byCategory, errorCount: errors, latency: second, units } = secondOf(r);
    this.addUnits(server, units);
    for (const [category, n] of Object.entries(byCategory)) server.totals.errors[category] = (server.totals.errors[category] ?? 0) + n;
    whole.add(second);
    const now = performance.now();
    const used = process.cpuUsage(this.cpuMark);
    const cpu = now > this.cpuMarkAt ? (used.user + used.system) / 1000 / (now - this.cpuMarkAt) : 0;
    this.cpuMark = process.cpuUsage();
    this.cpuMarkAt = now;

    const line = ok > 0 ? histogramLine(second, 1000) : undefined;
    const point: Point = {
      second: r.index + 1,
      at: r.startMs + r.lengthMs,
      target: r.targetRate,
      vus: r.vus,
      sent: r.sent,
      answered,
      ok,
      errors,
      dropped: r.dropped,
      inFlight: r.inFlight,
      p50: round(line?.p50 ?? null),
      p90: round(line?.p90 ?? null),
      p99: round(line?.p99 ?? null),
      lagP99: r.lag === null ? null : round(hdr.decodeFromCompressedBase64(r.lag).getValueAtPercentile(99) / 1000),
      loopDelayP99: round(r.loopDelayP99Us / 1000)!,
      cpu: Math.round(cpu * 1000) / 1000,
      held: live?.wallets?.held ?? null,
    };
    server.points.push(point);
    const t = server.totals;
    t.sent += r.sent;
    t.answered += answered;
    t.ok += ok;
    t.dropped += r.dropped;
    if (whole.totalCount > 0) {
      const all = histogramLine(whole, 1000);
      t.latencyMs = { p50: round(all.p50), p90: round(all.p90), p99: round(all.p99), max: round(all.max) };
    }
    if (live?.thresholds) this.view.thresholds = live.thresholds;
    return { server, point };
  }

  /** A second's units into their totals: ok latencies added up, failures counted (dropped ones are in the totals). */
  private addUnits(server: ServerView, units: Second['units']): void {
    let byUnit = this.unitLatencies.get(server.server);
    if (!byUnit) this.unitLatencies.set(server.server, (byUnit = new Map()));
    for (const [method, second] of units) {
      const unit = (server.units[method] ??= { ok: 0, errors: 0, p50: null, p90: null, p99: null, max: null });
      unit.ok += second.ok;
      unit.errors += second.errors;
      if (!second.latency) continue;
      let whole = byUnit.get(method);
      if (!whole) byUnit.set(method, (whole = newHistogram()));
      whole.add(second.latency);
      const line = histogramLine(whole, 1000);
      Object.assign(unit, { p50: round(line.p50), p90: round(line.p90), p99: round(line.p99), max: round(line.max) });
    }
  }

  end(status: string, thresholds: ThresholdState[] | undefined): void {
    this.view.status = status;
    if (thresholds) this.view.thresholds = thresholds;
  }
}
