/**
 * HdrHistogram interval logs (`.hlog`) of a stored load run, in the format HdrHistogram's own tools
 * read (HistogramLogProcessor, HistogramLogReader in Java, C, Go and JS): a start-time comment, the
 * base time, the legend, then one line per second per server — `Tag=SERVER,start,length,max,
 * histogram` with the start relative to the base time and the compressed histogram of latency
 * from the intended send (ok calls; all methods, or one). Values are integer microseconds: give
 * HdrHistogram's tools an output unit ratio of 1000 to read milliseconds.
 */
import * as hdr from 'hdr-histogram-js';
import { writeFileAtomic } from '../core/atomic-write';
import type { LoadStore } from '../store/load-results';
import { UserError } from '../user-error';
import { newHistogram } from './recorder';

export function writeHlog(store: LoadStore, runId: number, out: string, opts: { method?: string } = {}): { lines: number } {
  const run = store.run(runId);
  if (!run) throw new UserError(`--run: no load run ${runId} in this database`);
  const servers = store.servers(runId);
  const chunks: string[] = [];
  const writer = new hdr.HistogramLogWriter((c) => chunks.push(c));
  let base = Infinity;
  for (const s of servers) for (const rec of store.intervals(runId, s.id)) base = Math.min(base, rec.startMs);
  if (base === Infinity) throw new UserError(`load run ${runId} has no interval to export`);
  writer.outputLogFormatVersion();
  writer.outputComment(`[electrum-bench load run ${runId}, latency from the intended send in µs, ok calls${opts.method ? ` of ${opts.method}` : ''}]`);
  writer.outputStartTime(base);
  writer.outputComment(`[BaseTime: ${(base / 1000).toFixed(3)} (seconds since epoch)]`);
  writer.baseTime = base;
  writer.outputLegend();
  let lines = 0;
  const merged = newHistogram();
  for (const s of servers) {
    for (const rec of store.intervals(runId, s.id)) {
      merged.reset();
      for (const c of rec.cells) {
        if (c.outcome !== 'ok' || !c.latency || (opts.method && c.method !== opts.method)) continue;
        const h = hdr.decodeFromCompressedBase64(c.latency, 32, false);
        merged.add(h);
        h.destroy();
      }
      merged.tag = s.name.replace(/[\s,]/g, '_'); // a tag may hold neither commas nor spaces
      merged.startTimeStampMsec = rec.startMs;
      merged.endTimeStampMsec = rec.startMs + rec.lengthMs;
      writer.outputIntervalHistogram(merged, undefined, undefined, 1000);
      lines++;
    }
  }
  writeFileAtomic(out, chunks.join(''), { mkdir: true });
  return { lines };
}
