/**
 * `--out prometheus-rw=URL` (k6's name for it): each closed interval pushed to a Prometheus
 * remote-write receiver (Prometheus with --web.enable-remote-write-receiver, Mimir, Thanos,
 * VictoriaMetrics), so a dashboard shows the load beside the server's own metrics:
 *
 * - `electrum_bench_requests_total{server,method,outcome}`: counters since the run began, one
 *   outcome per request as the summary counts them (`dropped` included);
 * - `electrum_bench_request_duration_seconds{server,method}`: latency of ok replies from the
 *   intended send, as a native histogram, or as classic `_bucket`/`_sum`/`_count` series, or both
 *   (ELECTRUM_BENCH_PROMETHEUS_RW_HISTOGRAMS=native|classic|both; native by default);
 * - gauges of the generator's side: target rate, virtual users, in flight, lag p99, loop delay p99;
 * - wallet load: `electrum_bench_wallets_held`, `electrum_bench_blocks`,
 *   `electrum_bench_notifications_total{kind,outcome}` (headers or scripthash; ok, missing,
 *   duplicate) and `electrum_bench_notification_delay_seconds{kind,quantile}` (0.5, 0.99 of the ok
 *   ones, from the moment each block was asked for).
 *
 * `method` names the unit: a request's method, or for wallet runs `sync` (an arriving wallet) and
 * `hold-sync` (one filling --hold).
 *
 * Every series carries `job="electrum-bench"`, `test_start` (the ISO time the run's schedule began:
 * the shards of a coordinated test share it, two runs never do), `run` (the run's number in its
 * database) and, for a shard, `shard="I/N"`. Samples are stamped with their interval's end. Writes
 * go one at a time in the background; a receiver that is slow or refuses never slows the run, and
 * the end says how many writes failed and why. Credentials, in the URL or in
 * ELECTRUM_BENCH_PROMETHEUS_RW_USERNAME / _PASSWORD (k6's way, which keeps them out of a
 * manifest's command line), are sent as basic auth and never printed.
 */
import * as hdr from 'hdr-histogram-js';
import { request } from 'undici';
import type { AnyIntervalRecord } from '../../core/load-types';
import { LatencyBuckets } from './prometheus/latency-buckets';
import { encodeWriteRequest, type Label, type TimeSeries } from './prometheus/write-request';
import type { LiveState, Output, OutputKind, RunContext } from './output';

type HistogramKind = 'native' | 'classic' | 'both';
const HISTOGRAMS_ENV = 'ELECTRUM_BENCH_PROMETHEUS_RW_HISTOGRAMS';
const USERNAME_ENV = 'ELECTRUM_BENCH_PROMETHEUS_RW_USERNAME';
const PASSWORD_ENV = 'ELECTRUM_BENCH_PROMETHEUS_RW_PASSWORD';
const HISTOGRAM_KINDS: readonly HistogramKind[] = ['native', 'classic', 'both'];
/** Writes waiting behind a slow receiver; past this the oldest are given up (and counted). */
const MAX_QUEUED = 120;
const WRITE_TIMEOUT_MS = 5_000;
/** How long the end waits for writes still queued: a stopped run must end within 2 s. */
const FLUSH_MS = 1_500;

/** The URL as it may be printed: without user and password. */
export function redactedUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  return shown.href;
}

class RemoteWrite implements Output {
  private context: RunContext = { run: 0, shard: null };
  private testStart: string | undefined;
  private readonly aborter = new AbortController();
  private finished = false;
  private readonly requests = new Map<string, { labels: Label[]; value: number }>();
  private readonly latencies = new Map<string, { labels: Label[]; buckets: LatencyBuckets }>();
  private readonly queue: Uint8Array[] = [];
  private sending: Promise<void> | undefined;
  private readonly headers: Record<string, string>;
  private writes = 0;
  private failed = 0;
  private givenUp = 0;
  private firstError: string | undefined;

  constructor(
    private readonly url: URL,
    private readonly histograms: HistogramKind,
  ) {
    this.headers = {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
      'user-agent': 'electrum-bench',
    };
    const user = url.username ? decodeURIComponent(url.username) : process.env[USERNAME_ENV];
    const password = url.password ? decodeURIComponent(url.password) : process.env[PASSWORD_ENV];
    if (user || password) this.headers.authorization = `Basic ${Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64')}`;
  }

  start(context: RunContext): void {
    this.context = context;
  }

  interval(r: AnyIntervalRecord, live?: LiveState): void {
    if (this.finished) return;
    this.testStart ??= new Date(r.startMs).toISOString();
    const at = r.startMs + r.lengthMs;
    const series: TimeSeries[] = [];
    for (const c of r.cells) {
      const counter = this.entry(this.requests, 'electrum_bench_requests_total', r.server, { method: c.method, outcome: c.outcome }, () => ({ value: 0 }));
      counter.value += c.count;
      if (c.outcome === 'ok' && c.latency !== null) {
        const latency = this.entry(this.latencies, 'electrum_bench_request_duration_seconds', r.server, { method: c.method }, () => ({ buckets: new LatencyBuckets() }));
        latency.buckets.add(hdr.decodeFromCompressedBase64(c.latency));
      }
    }
    for (const { labels, value } of this.requests.values()) if (labels.some((l) => l.name === 'server' && l.value === r.server)) series.push({ labels, samples: [{ value, timestamp: at }] });
    for (const { labels, buckets } of this.latencies.values()) {
      if (!labels.some((l) => l.name === 'server' && l.value === r.server)) continue;
      if (this.histograms !== 'classic') series.push({ labels, histograms: [buckets.nativeHistogram(at)] });
      if (this.histograms !== 'native') {
        const base = labels.filter((l) => l.name !== '__name__');
        for (const { le, count } of buckets.classicBuckets()) series.push({ labels: this.labels('electrum_bench_request_duration_seconds_bucket', base, { le }), samples: [{ value: count, timestamp: at }] });
        series.push({ labels: this.labels('electrum_bench_request_duration_seconds_sum', base), samples: [{ value: buckets.sum, timestamp: at }] });
        series.push({ labels: this.labels('electrum_bench_request_duration_seconds_count', base), samples: [{ value: buckets.count, timestamp: at }] });
      }
    }
    const gauge = (name: string, value: number | null) => {
      if (value !== null) series.push({ labels: this.labels(name, this.serverLabels(r.server)), samples: [{ value, timestamp: at }] });
    };
    gauge('electrum_bench_target_rate', r.targetRate);
    gauge('electrum_bench_vus', r.vus);
    gauge('electrum_bench_in_flight', r.inFlight);
    gauge('electrum_bench_generator_lag_p99_seconds', r.lag === null ? null : hdr.decodeFromCompressedBase64(r.lag).getValueAtPercentile(99) / 1e6);
    gauge('electrum_bench_event_loop_delay_p99_seconds', r.loopDelayP99Us / 1e6);
    const w = live?.wallets;
    if (w) {
      gauge('electrum_bench_wallets_held', w.held);
      gauge('electrum_bench_blocks', w.blocks);
      const base = this.serverLabels(r.server);
      for (const kind of ['headers', 'scripthash'] as const) {
        for (const outcome of ['ok', 'missing', 'duplicate'] as const) {
          series.push({ labels: this.labels('electrum_bench_notifications_total', base, { kind, outcome }), samples: [{ value: w[kind][outcome], timestamp: at }] });
        }
        for (const [quantile, value] of [['0.5', w[kind].p50Ms], ['0.99', w[kind].p99Ms]] as const) {
          if (value !== null) series.push({ labels: this.labels('electrum_bench_notification_delay_seconds', base, { kind, quantile }), samples: [{ value: value / 1000, timestamp: at }] });
        }
      }
    }
    this.enqueue(encodeWriteRequest(series));
  }

  async end(): Promise<void> {
    const deadline = new Promise<'late'>((resolve) => setTimeout(resolve, FLUSH_MS, 'late').unref());
    const late = (await Promise.race([this.drained(), deadline])) === 'late';
    this.finish(late ? this.queue.length + 1 : 0);
  }

  /** A run that ends without end() (a failure) sends nothing more and says what was lost. */
  async close(): Promise<void> {
    this.finish(this.queue.length + (this.sending ? 1 : 0));
  }

  /** Stops sending (a write still in flight is cut: the process must end within 2 s) and says once what failed. */
  private finish(unsent: number): void {
    if (this.finished) return;
    this.finished = true;
    this.queue.length = 0;
    this.aborter.abort();
    if (this.failed || this.givenUp || unsent) {
      const parts = [
        this.failed ? `${this.failed} of ${this.writes} writes failed${this.firstError ? ` (first: ${this.firstError})` : ''}` : '',
        this.givenUp ? `${this.givenUp} intervals given up behind a slow receiver` : '',
        unsent ? `${unsent} intervals not sent by the end` : '',
      ].filter(Boolean);
      process.stderr.write(`electrum-bench: --out prometheus-rw=${redactedUrl(this.url)}: ${parts.join('; ')}\n`);
    }
  }

  private entry<T extends object>(map: Map<string, T & { labels: Label[] }>, name: string, server: string, extra: Record<string, string>, make: () => T): T & { labels: Label[] } {
    const key = `${server}\u0000${Object.values(extra).join('\u0000')}`;
    let found = map.get(key);
    if (!found) {
      found = { ...make(), labels: this.labels(name, [...this.serverLabels(server), ...Object.entries(extra).map(([n, value]) => ({ name: n, value }))]) };
      map.set(key, found);
    }
    return found;
  }

  private serverLabels(server: string): Label[] {
    return [
      { name: 'job', value: 'electrum-bench' },
      { name: 'test_start', value: this.testStart ?? '' },
      { name: 'run', value: String(this.context.run) },
      ...(this.context.shard ? [{ name: 'shard', value: this.context.shard }] : []),
      { name: 'server', value: server },
    ];
  }

  /** Labels sorted by name, `__name__` among them, as the remote-write spec asks. */
  private labels(name: string, base: Label[], extra: Record<string, string> = {}): Label[] {
    const all = [{ name: '__name__', value: name }, ...base, ...Object.entries(extra).map(([n, value]) => ({ name: n, value }))];
    return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private enqueue(body: Uint8Array): void {
    this.queue.push(body);
    // Oldest first out: a series' samples must arrive in time order, so nothing is sent out of turn.
    while (this.queue.length > MAX_QUEUED) {
      this.queue.shift();
      this.givenUp++;
    }
    this.sending ??= this.sendAll().finally(() => {
      this.sending = undefined;
    });
  }

  private async sendAll(): Promise<void> {
    for (let body = this.queue.shift(); body; body = this.queue.shift()) {
      this.writes++;
      try {
        const res = await request(this.url, { method: 'POST', headers: this.headers, body, headersTimeout: WRITE_TIMEOUT_MS, bodyTimeout: WRITE_TIMEOUT_MS, signal: this.aborter.signal });
        const text = await res.body.text();
        if (res.statusCode >= 300) this.fail(`HTTP ${res.statusCode}${text.trim() ? `: ${text.trim().split('\n')[0].slice(0, 200)}` : ''}`);
      } catch (err) {
        if (!this.finished) this.fail((err as Error).message);
      }
    }
  }

  private fail(reason: string): void {
    this.failed++;
    this.firstError ??= reason;
  }

  private async drained(): Promise<'drained'> {
    while (this.sending) await this.sending;
    return 'drained';
  }
}

function histogramKind(): HistogramKind | undefined {
  const value = process.env[HISTOGRAMS_ENV] || 'native';
  return (HISTOGRAM_KINDS as readonly string[]).includes(value) ? (value as HistogramKind) : undefined;
}

export const prometheusRemoteWrite: OutputKind = {
  name: 'prometheus-rw',
  argument: 'URL',
  validate: (argument) => {
    const problems: string[] = [];
    // The argument is never echoed unless it parses as http(s): what does not may hold a password.
    let url: URL | undefined;
    try {
      url = new URL(argument);
    } catch {
      problems.push(`--out prometheus-rw=URL: ${argument === '' ? "give the receiver's URL (e.g. http://127.0.0.1:9090/api/v1/write)" : 'not a URL'}`);
    }
    if (url && url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('--out prometheus-rw=URL: the URL must start with http:// or https://');
    if (!histogramKind()) problems.push(`${HISTOGRAMS_ENV}=${process.env[HISTOGRAMS_ENV]}: expected ${HISTOGRAM_KINDS.join(', ')}`);
    return problems;
  },
  create: (argument) => new RemoteWrite(new URL(argument), histogramKind()!),
};
