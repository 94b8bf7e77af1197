/**
 * `--out json=FILE`: the run's intervals as JSON lines while it runs, one line per server per
 * second, then one line with the summary. Each interval line is whole in itself (counts, errors by
 * category, latency percentiles of that second's ok replies; a bench's progress through its plan,
 * a wallet load's held wallets and notifications so far), so `tail -f FILE | jq` follows a run,
 * and a run cut short leaves every line of the seconds it finished.
 */
import fs from 'node:fs';
import type { AnyIntervalRecord } from '../../core/load-types';
import { histogramLine } from '../../core/percentile-line';
import { claimOutputFile } from '../../core/output-path';
import { secondOf } from './second';
import type { LiveState, Output, OutputKind, RunContext } from './output';

class JsonLines implements Output {
  private context: RunContext = { run: 0, shard: null };
  private fd: number | undefined;

  constructor(private readonly file: string) {}

  start(context: RunContext): void {
    this.context = context;
  }

  interval(r: AnyIntervalRecord, live?: LiveState): void {
    const { answered, ok, errors, latency } = secondOf(r);
    const line = histogramLine(latency, 1000);
    this.write({
      type: 'interval',
      ...this.context,
      server: r.server,
      second: r.index,
      startMs: r.startMs,
      lengthMs: r.lengthMs,
      targetRate: r.targetRate,
      vus: r.vus,
      sent: r.sent,
      answered,
      ok,
      errors,
      dropped: r.dropped,
      inFlight: r.inFlight,
      latencyMs: { p50: line.p50, p90: line.p90, p99: line.p99, max: line.max },
      ...(live?.progress ? { progress: live.progress } : {}),
      ...(live?.wallets ? { wallets: live.wallets } : {}),
    });
  }

  end(summary: unknown): void {
    this.write({ type: 'summary', ...this.context, summary });
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /** The file is created with its first line: a run stopped before any interval leaves none. */
  private write(value: unknown): void {
    this.fd ??= fs.openSync(this.file, 'w');
    fs.writeSync(this.fd, JSON.stringify(value) + '\n');
  }
}

export const json: OutputKind = {
  name: 'json',
  argument: 'FILE',
  validate: (file) => (file.trim() === '' ? ['--out json=FILE: give the file to write'] : []),
  create: (file) => {
    claimOutputFile(file, '--out json');
    return new JsonLines(file);
  },
};
