/**
 * HdrHistogram interval logs of a stored load run, read back with hdr-histogram-js's own
 * HistogramLogReader: every interval's count and p99 must be what the database holds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as hdr from 'hdr-histogram-js';
import type { IntervalCell, LoadOutcome } from '../../../src/core/load-types';
import type { MethodName } from '../../../src/core/methods';
import { writeHlog } from '../../../src/load/hlog';
import { LoadStore } from '../../../src/store/load-results';
import { ResultsStore } from '../../../src/store/results';
import { UserError } from '../../../src/core/user-error';


const T0 = 1_700_000_000_000;
const SECONDS = 4;

let tmp: string;
let results: ResultsStore;
let store: LoadStore;
let runId: number;
/** Every ok latency written, per server, second and method. */
const okUs = new Map<string, number[]>();
const key = (server: string, second: number, method: string) => `${server}/${second}/${method}`;

function histogramOf(values: number[]): hdr.Histogram {
  const h = hdr.build({ numberOfSignificantValueDigits: 3 });
  for (const v of values) h.recordValue(v);
  return h;
}

function cell(method: MethodName, outcome: LoadOutcome, values: number[]): IntervalCell {
  const b64 = values.length ? hdr.encodeIntoCompressedBase64(histogramOf(values)) : null;
  return { method, outcome, count: values.length, bytes: values.length * 100, latency: b64, service: b64 };
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-hlog-'));
  results = ResultsStore.open(path.join(tmp, 'run.sqlite'));
  store = new LoadStore(results);
  const servers = ['alpha', 'beta gamma,1'];
  const created = store.createRun(
    { tool_version: 't', git_commit: null, config: {}, model: { kind: 'rate', rate: 100 }, model_text: 'open, 100/s', dataset_path: null, dataset_hash: null, shard: null },
    servers.map((name) => ({ name, profile: 'electrumx', url: `tcp://127.0.0.1:1`, software: null, protocol: null })),
  );
  runId = created.runId;
  servers.forEach((server, si) => {
    for (let s = 0; s < SECONDS; s++) {
      const cells: IntervalCell[] = [];
      // The second server's second 2 has no ok call at all: its line must still be there, empty.
      const quiet = si === 1 && s === 2;
      for (const [m, method] of (['balance', 'history'] as MethodName[]).entries()) {
        const values = quiet ? [] : Array.from({ length: 50 + 30 * m + 10 * s }, (_, k) => 200 + ((k * 7919 + s * 104729 + si * 31) % (5000 * (m + 1))));
        okUs.set(key(server, s, method), values);
        if (values.length) cells.push(cell(method, 'ok', values));
      }
      // Errors carry latencies too; they are not ok calls and stay out of the log.
      cells.push(cell('utxos', 'timeout', [900_000, 950_000]));
      cells.push({ method: 'utxos', outcome: 'dropped', count: 3, bytes: 0, latency: null, service: null });
      store.addInterval(runId, created.serverIds.get(server)!, {
        server, index: s, startMs: T0 + s * 1000, lengthMs: 1000, targetRate: 100, vus: null,
        sent: 100, dropped: 3, inFlight: 0, lag: null, loopDelayP99Us: 10, cells,
      });
    }
  });
  store.finishRun(runId, { status: 'completed', generatorBound: false });
});

afterAll(() => {
  results.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function readAll(file: string): hdr.Histogram[] {
  const reader = new hdr.HistogramLogReader(fs.readFileSync(file, 'utf8'));
  const out: hdr.Histogram[] = [];
  for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) out.push(h);
  return out;
}

describe('writeHlog', () => {
  it('writes a log HdrHistogram reads back: per server tag, per second count and p99 as stored', () => {
    const file = path.join(tmp, 'out', 'all.hlog');
    const written = writeHlog(store, runId, file);
    expect(written).toEqual({ file, intervals: 2 * SECONDS, tags: { alpha: 'alpha', 'beta gamma,1': 'beta_gamma_1' } });
    expect(hdr.listTags(fs.readFileSync(file, 'utf8'))).toEqual(['alpha', 'beta_gamma_1']);

    const read = readAll(file);
    expect(read).toHaveLength(2 * SECONDS);
    for (const [server, tag] of Object.entries(written.tags)) {
      const mine = read.filter((h) => h.tag === tag);
      expect(mine).toHaveLength(SECONDS);
      mine.forEach((h, s) => {
        const all = [...okUs.get(key(server, s, 'balance'))!, ...okUs.get(key(server, s, 'history'))!];
        expect(Math.round(h.startTimeStampMsec)).toBe(T0 + s * 1000);
        expect(Math.round(h.endTimeStampMsec)).toBe(T0 + s * 1000 + 1000);
        expect(h.totalCount).toBe(all.length);
        expect(h.getValueAtPercentile(99)).toBe(histogramOf(all).getValueAtPercentile(99));
        // A decoded histogram knows its max only to its bucket's precision (3 significant digits).
        const max = all.length ? Math.max(...all) : 0;
        expect(Math.abs(h.maxValue - max)).toBeLessThanOrEqual(max / 1000);
      });
    }
    expect(read.find((h) => h.tag === 'beta_gamma_1' && Math.round(h.startTimeStampMsec) === T0 + 2000)!.totalCount).toBe(0);
  });

  it('keeps lines in time order across servers, with the headers the format defines and no blank line', () => {
    const file = path.join(tmp, 'order.hlog');
    writeHlog(store, runId, file);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines[0]).toBe('#[Histogram log format version 1.3]');
    expect(lines).toContain(`#[BaseTime: ${T0 / 1000}.000 (seconds since epoch)]`);
    expect(lines.some((l) => l.startsWith(`#[StartTime: ${T0 / 1000}.000 (seconds since epoch), `))).toBe(true);
    expect(lines).toContain('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).every((l) => l.length > 0)).toBe(true);
    const intervals = lines.filter((l) => l.startsWith('Tag='));
    const starts = intervals.map((l) => Number(l.split(',')[1]));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(intervals[0]).toMatch(/^Tag=alpha,0\.000,1\.000,\d+\.\d{3},\S+$/);
  });

  it('writes one method, or one server, when asked', () => {
    const file = path.join(tmp, 'history.hlog');
    writeHlog(store, runId, file, { method: 'history', server: 'alpha' });
    const read = readAll(file);
    expect(read.map((h) => h.tag)).toEqual(Array(SECONDS).fill('alpha'));
    read.forEach((h, s) => {
      const values = okUs.get(key('alpha', s, 'history'))!;
      expect(h.totalCount).toBe(values.length);
      expect(h.getValueAtPercentile(99)).toBe(histogramOf(values).getValueAtPercentile(99));
    });
  });

  it('refuses an unknown run, server or method in one line naming it, and writes nothing', () => {
    const file = path.join(tmp, 'never.hlog');
    expect(() => writeHlog(store, 999, file)).toThrow(new UserError('load run 999: no such run in this database'));
    expect(() => writeHlog(store, runId, file, { server: 'delta' })).toThrow(/^--server delta: load run \d+ has no such server \(it has alpha, beta gamma,1\)$/);
    expect(() => writeHlog(store, runId, file, { method: 'headers' })).toThrow(/^--method headers: expected one of balance, history, utxos$/);
    expect(fs.existsSync(file)).toBe(false);
  });
});
