/**
 * A stored load run as an HdrHistogram interval log (`.hlog`, log format 1.3), so HdrHistogram's
 * own tools (HistogramLogProcessor, HistogramLogAnalyzer, the Java/C/Go/JS log readers) can plot
 * and re-slice it. Every line carries `Tag=SERVER,` so one file holds every server of the run; the
 * tools pick one with their tag option (HistogramLogProcessor `-tag NAME`).
 *
 * Values are integer microseconds of latency from the intended send (coordinated-omission free),
 * ok calls only; the Interval_Max column is in milliseconds (max ÷ 1000), which is what the
 * format's "max value unit ratio" convention expects.
 */
import * as hdr from 'hdr-histogram-js';
import { AtomicWriteError, writeFileAtomic } from '../core/atomic-write';
import type { IntervalRecord } from '../core/load-types';
import { isMethodName, METHOD_NAMES } from '../core/methods';
import type { LoadStore } from '../store/load-results';
import { UserError } from '../core/user-error';
import { newHistogram } from '../engine/sinks/hdr-intervals';

export interface HlogOptions {
  /** Only this server's lines (by its name in the run). */
  server?: string;
  /** Only this method's ok calls; all methods merged when absent. */
  method?: string;
}

export interface HlogWritten {
  file: string;
  /** Interval lines written, over all servers. */
  intervals: number;
  /** server name → its tag in the file (names with commas or blanks cannot be tags as they are). */
  tags: Record<string, string>;
}

const MAX_UNIT_RATIO = 1000; // µs → ms in the Interval_Max column

export function writeHlog(store: LoadStore, runId: number, out: string, opts: HlogOptions = {}): HlogWritten {
  if (!store.run(runId)) throw new UserError(`load run ${runId}: no such run in this database`);
  if (opts.method !== undefined && !isMethodName(opts.method)) {
    throw new UserError(`--method ${opts.method}: expected one of ${METHOD_NAMES.join(', ')}`);
  }
  let servers = store.servers(runId);
  if (opts.server !== undefined) {
    const wanted = servers.filter((s) => s.name === opts.server);
    if (wanted.length === 0) throw new UserError(`--server ${opts.server}: load run ${runId} has no such server (it has ${servers.map((s) => s.name).join(', ') || 'none'})`);
    servers = wanted;
  }
  const tags = tagsOf(servers.map((s) => s.name));

  // The tools stop reading at the first line past a requested time range, so lines must be in time
  // order across servers, not server after server: merge the servers' (ordered) interval streams.
  const streams = servers.map((s) => ({ name: s.name, it: store.intervals(runId, s.id), head: undefined as IntervalRecord | undefined }));
  for (const s of streams) s.head = s.it.next().value ?? undefined;
  const first = earliest(streams);
  if (!first) throw new UserError(`load run ${runId} has no interval to write${opts.server !== undefined ? ` for server ${opts.server}` : ''}`);
  const baseMs = first.head!.startMs;

  const chunks: string[] = [];
  const writer = new hdr.HistogramLogWriter((text) => chunks.push(text));
  writer.outputLogFormatVersion();
  writer.outputComment(
    `[electrum-bench load run ${runId}: latency from the intended send of ok calls (${opts.method ?? 'all methods'}), integer microseconds; ` +
      `tags: ${Object.values(tags).join(' ')}]`,
  );
  // Not writer.outputStartTime(): it ends the line twice, and the blank line it leaves trips the
  // Java reader's scanner.
  writer.outputComment(`[StartTime: ${seconds(baseMs)} (seconds since epoch), ${new Date(baseMs).toISOString()}]`);
  writer.outputComment(`[BaseTime: ${seconds(baseMs)} (seconds since epoch)]`);
  writer.outputLegend();
  writer.baseTime = baseMs;

  let intervals = 0;
  for (let s = earliest(streams); s; s = earliest(streams)) {
    const rec = s.head!;
    const h = latencyOf(rec, runId, opts.method);
    h.startTimeStampMsec = rec.startMs;
    h.endTimeStampMsec = rec.startMs + rec.lengthMs;
    h.tag = tags[s.name];
    writer.outputIntervalHistogram(h, undefined, undefined, MAX_UNIT_RATIO);
    intervals++;
    s.head = s.it.next().value ?? undefined;
  }

  try {
    writeFileAtomic(out, chunks.join(''), { mkdir: true });
  } catch (err) {
    if (err instanceof AtomicWriteError) throw new UserError(err.message);
    throw err;
  }
  return { file: out, intervals, tags };
}

/** Ok calls of one second, all methods or one, in one histogram (empty when none: the timeline stays whole). */
function latencyOf(rec: IntervalRecord, runId: number, method: string | undefined): hdr.Histogram {
  const h = newHistogram();
  for (const c of rec.cells) {
    if (c.outcome !== 'ok' || c.latency === null || (method !== undefined && c.method !== method)) continue;
    try {
      h.add(hdr.decodeFromCompressedBase64(c.latency));
    } catch (err) {
      throw new UserError(`load run ${runId}, server ${rec.server}, second ${rec.index}: unreadable ${c.method} latency histogram (${(err as Error).message})`);
    }
  }
  return h;
}

function earliest<T extends { head: IntervalRecord | undefined }>(streams: T[]): T | undefined {
  let best: T | undefined;
  for (const s of streams) if (s.head && (!best || s.head.startMs < best.head!.startMs)) best = s;
  return best;
}

/**
 * Readers split a line at commas (all of them) and at blanks (Java's scanner), so those become
 * `_`; two names that then collide would merge two servers' lines, which is refused.
 */
function tagsOf(names: string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  const owner = new Map<string, string>();
  for (const name of names) {
    const tag = name.replace(/[\s,]/g, '_');
    const other = owner.get(tag);
    if (other !== undefined) throw new UserError(`servers ${JSON.stringify(other)} and ${JSON.stringify(name)} would share the hlog tag ${tag}; write one at a time with --server`);
    owner.set(tag, name);
    tags[name] = tag;
  }
  return tags;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);
