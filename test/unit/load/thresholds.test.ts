/**
 * k6-style thresholds on synthetic IntervalRecords (histograms built with hdr-histogram-js as the
 * recorder builds them): parsing, whole-run and sliding-window evaluation, abortOnFail timing,
 * per-server results, the printed lines, and state that stays bounded over a long run.
 */
import * as hdr from 'hdr-histogram-js';
import type { MethodName } from '../../../src/core/methods';
import type { IntervalCell, IntervalRecord, LoadOutcome } from '../../../src/core/load-types';
import { UserError } from '../../../src/core/user-error';
import { createThresholdTracker, formatThresholdResults, parseThreshold, ThresholdResult } from '../../../src/load/thresholds';

function encode(valuesUs: number[]): string {
  const h = hdr.build({ numberOfSignificantValueDigits: 3 });
  for (const v of valuesUs) h.recordValue(v);
  return hdr.encodeIntoCompressedBase64(h);
}

/** What the histogram reports for a value (HdrHistogram rounds up to its bucket's top), in ms. */
function reportedMs(valueUs: number): number {
  const h = hdr.build({ numberOfSignificantValueDigits: 3 });
  h.recordValue(valueUs);
  return h.getValueAtPercentile(100) / 1000;
}

const repeat = (v: number, n: number) => Array<number>(n).fill(v);

function cell(method: MethodName, outcome: LoadOutcome, latencyUs: number[], serviceUs?: number[]): IntervalCell {
  return { method, outcome, count: latencyUs.length, bytes: 0, latency: encode(latencyUs), service: encode(serviceUs ?? latencyUs) };
}

function dropped(method: MethodName, n: number): IntervalCell {
  return { method, outcome: 'dropped', count: n, bytes: 0, latency: null, service: null };
}

function record(index: number, cells: IntervalCell[], over: Partial<IntervalRecord> = {}): IntervalRecord {
  const sent = cells.filter((c) => c.outcome !== 'dropped').reduce((a, c) => a + c.count, 0);
  const drops = cells.filter((c) => c.outcome === 'dropped').reduce((a, c) => a + c.count, 0);
  return {
    server: 'electrumx',
    index,
    startMs: 1_700_000_000_000 + index * 1000,
    lengthMs: 1000,
    targetRate: 100,
    vus: null,
    sent,
    dropped: drops,
    inFlight: 0,
    lag: null,
    loopDelayP99Us: 0,
    cells,
    ...over,
  };
}

const GOOD = cell('balance', 'ok', repeat(1000, 100));
/** One bad second: 5 of its 100 calls take 300 ms (0.5% of a 10-second run, 5% of that second). */
const BAD = cell('balance', 'ok', [...repeat(1000, 95), ...repeat(300_000, 5)]);
const BAD_MS = reportedMs(300_000);

function tenSecondsWithOneBad(): IntervalRecord[] {
  return Array.from({ length: 10 }, (_, i) => record(i, [i === 4 ? BAD : GOOD]));
}

function run(texts: string[], records: IntervalRecord[]): ThresholdResult[] {
  const t = createThresholdTracker(texts);
  for (const r of records) t.observe(r);
  return t.results();
}

describe('parseThreshold', () => {
  test.each([
    ['latency:p(99)<250', { metric: 'latency', aggregation: { kind: 'p', percentile: 99 }, operator: '<', value: 250, unit: 'ms' }],
    ['latency:p(95)<=100', { aggregation: { kind: 'p', percentile: 95 }, operator: '<=', value: 100 }],
    ['latency:p(99.9)<500', { aggregation: { kind: 'p', percentile: 99.9 } }],
    ['latency:avg<50', { aggregation: { kind: 'avg' }, value: 50 }],
    ['latency:med<20', { aggregation: { kind: 'med' } }],
    ['latency:max<1000', { aggregation: { kind: 'max' } }],
    ['latency:min>0', { aggregation: { kind: 'min' }, operator: '>', value: 0 }],
    ['service:p(99)<100', { metric: 'service', unit: 'ms' }],
    ['errors:rate<0.01', { metric: 'errors', aggregation: { kind: 'rate' }, value: 0.01, unit: 'ratio' }],
    ['errors:count<10', { metric: 'errors', aggregation: { kind: 'count' }, unit: 'count' }],
    ['dropped:count==0', { metric: 'dropped', operator: '==', value: 0, unit: 'count' }],
    ['dropped:rate<0.001', { metric: 'dropped', aggregation: { kind: 'rate' }, unit: 'ratio' }],
    ['rps:avg>=190', { metric: 'rps', aggregation: { kind: 'avg' }, operator: '>=', value: 190, unit: 'per-second' }],
    ['throughput:avg>=190', { metric: 'rps', operator: '>=' }],
    ['errors:count!=3', { operator: '!=' }],
    ['latency[10s]:p(99)<250', { windowIntervals: 10, method: null }],
    ['latency[2m]:p(99)<250', { windowIntervals: 120 }],
    ['latency{method:history}:p(99)<500', { windowIntervals: null, method: 'history' }],
    ['latency[10s]{method:utxos}:p(99)<500', { windowIntervals: 10, method: 'utxos' }],
    ['latency{method:utxos}[10s]:p(99)<500', { windowIntervals: 10, method: 'utxos' }],
    ['latency:p(99)<250,abortOnFail', { abortOnFail: true, expression: 'latency:p(99)<250', text: 'latency:p(99)<250,abortOnFail' }],
    ['  latency[5s] : p(99) < 250 , abortOnFail ', { windowIntervals: 5, operator: '<', value: 250, abortOnFail: true, text: 'latency[5s] : p(99) < 250 , abortOnFail' }],
  ])('%s', (text, expected) => {
    const t = parseThreshold(text);
    expect(t).toMatchObject(expected);
    if (!text.includes('abortOnFail')) expect(t).toMatchObject({ abortOnFail: false, text, expression: text });
  });

  test.each([
    ['latency:p(999)<5', 'percentile must be 0..100'],
    ['latency:p(abc)<5', 'percentile must be 0..100'],
    ['', 'empty threshold'],
    ['latncy:p(99)<250', 'unknown metric "latncy"'],
    ['p(99)<250', 'expected METRIC'],
    ['latency:p(99)=250', 'operator'],
    ['latency:p(99)=<250', 'operator'],
    ['latency:p(99)<', 'value must be a non-negative number'],
    ['latency:p(99)<fast', 'value must be a non-negative number, got "fast"'],
    ['latency:p(99)<-5', 'value must be a non-negative number'],
    ['latency:p99<250', 'unknown aggregation "p99"'],
    ['latency:rate<0.1', 'latency has no rate'],
    ['errors:p(99)<1', 'errors has no percentiles'],
    ['rps:max>5', 'rps has no max'],
    ['latency[10x]:p(99)<250', 'window must be a whole number'],
    ['latency[0s]:p(99)<250', 'window must be 1s..24h'],
    ['latency[1s][2s]:p(99)<250', 'more than one window'],
    ['latency[10s:p(99)<250', 'expected METRIC'],
    ['latency{method:foo}:p(99)<1', 'unknown method "foo"'],
    ['latency{server:x}:p(99)<1', 'unknown filter'],
    ['dropped{method:history}:rate<0.1', 'cannot be filtered by method'],
    ['latency:p(99)<250,abortOnFial', 'unknown option "abortOnFial"'],
  ])('%j is refused: %s', (text, why) => {
    let err: unknown;
    try {
      parseThreshold(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    const msg = (err as Error).message;
    expect(msg.startsWith(`--threshold "${text.trim()}": `)).toBe(true);
    expect(msg).toContain(why);
    expect(msg).not.toContain('\n');
  });

  test('the message for a bad percentile is exactly one line naming the input', () => {
    expect(() => parseThreshold('latency:p(999)<5')).toThrow(new UserError('--threshold "latency:p(999)<5": percentile must be 0..100'));
  });

  test('a tracker is not built when any threshold is bad', () => {
    expect(() => createThresholdTracker(['latency:p(99)<250', 'errors:ratio<1'])).toThrow(UserError);
  });
});

describe('evaluation', () => {
  test('one bad second fails the [1s] and [3s] windows, not the whole run', () => {
    const r = run(['latency:p(99)<250', 'latency[1s]:p(99)<250', 'latency[3s]:p(99)<250', 'latency[10s]:p(99)<250', 'latency[3s]:p(99)<400'], tenSecondsWithOneBad());
    expect(BAD_MS).toBeGreaterThanOrEqual(300);
    expect(BAD_MS).toBeLessThan(300.3);
    expect(r).toEqual([
      // 1000 calls, 5 slow: the 990th is 1 ms.
      { threshold: 'latency:p(99)<250', server: 'electrumx', observed: 1, unit: 'ms', pass: true },
      // The bad second alone: its 99th call of 100 is slow.
      { threshold: 'latency[1s]:p(99)<250', server: 'electrumx', observed: BAD_MS, unit: 'ms', pass: false, window: { startIndex: 4, intervals: 1, value: BAD_MS } },
      // Windows starting at 2, 3 and 4 hold it (5 slow of 300): the first of them is reported.
      { threshold: 'latency[3s]:p(99)<250', server: 'electrumx', observed: BAD_MS, unit: 'ms', pass: false, window: { startIndex: 2, intervals: 3, value: BAD_MS } },
      { threshold: 'latency[10s]:p(99)<250', server: 'electrumx', observed: 1, unit: 'ms', pass: true, window: { startIndex: 0, intervals: 10, value: 1 } },
      { threshold: 'latency[3s]:p(99)<400', server: 'electrumx', observed: BAD_MS, unit: 'ms', pass: true, window: { startIndex: 2, intervals: 3, value: BAD_MS } },
    ]);
  });

  test('avg, med, min, max of latency and service time, in ms', () => {
    const c = cell('history', 'ok', [100, 200, 300, 400], [50, 60, 70, 80]);
    const r = run(['latency:avg<1', 'latency:med<1', 'latency:min>0', 'latency:max<0.3', 'service:p(50)<1', 'service:max<1'], [record(0, [c])]);
    expect(r.map((x) => [x.observed, x.pass])).toEqual([
      [0.25, true],
      [0.2, true],
      [0.1, true],
      [0.4, false],
      [0.06, true],
      [0.08, true],
    ]);
  });

  test('errors over completed calls, dropped over scheduled, rps over the span, method filters', () => {
    const recs = [
      record(0, [cell('balance', 'ok', repeat(1000, 60)), cell('history', 'ok', repeat(2000, 30)), cell('history', 'timeout', repeat(10_000, 10)), dropped('utxos', 5)]),
      record(1, [cell('balance', 'ok', repeat(1000, 100)), cell('utxos', 'server-error', repeat(500, 4))], { lengthMs: 500 }),
    ];
    const r = run(
      [
        'errors:rate<0.01',
        'errors:count<10',
        'errors{method:history}:rate<0.5',
        'errors{method:balance}:count==0',
        'dropped:count==0',
        'dropped:rate<0.001',
        'dropped{method:utxos}:count<=5',
        'rps:avg>=190',
        'throughput{method:balance}:avg>100',
        'latency{method:history}:p(99)<1',
        'latency{method:utxos}:p(99)<1',
      ],
      recs,
    );
    expect(r.map((x) => [x.threshold, x.observed, x.pass])).toEqual([
      ['errors:rate<0.01', 14 / 204, false],
      ['errors:count<10', 14, false],
      ['errors{method:history}:rate<0.5', 10 / 40, true],
      ['errors{method:balance}:count==0', 0, true],
      ['dropped:count==0', 5, false],
      ['dropped:rate<0.001', 5 / (204 + 5), false],
      ['dropped{method:utxos}:count<=5', 5, true],
      // Answered per second: the 10 timeouts are no answer (the 4 error replies are).
      ['rps:avg>=190', 194 / 1.5, false],
      ['throughput{method:balance}:avg>100', 160 / 1.5, true],
      ['latency{method:history}:p(99)<1', 2, false],
      // utxos had no ok call: no data fails (k6).
      ['latency{method:utxos}:p(99)<1', null, false],
    ]);
  });

  test('no data: latency fails with null, a rate with nothing to divide is 0', () => {
    const r = run(['latency:p(99)<250', 'errors:rate<0.01', 'dropped:rate<0.01', 'rps:avg>=1'], [record(0, [], { sent: 0 })]);
    expect(r.map((x) => [x.observed, x.pass])).toEqual([
      [null, false],
      [0, true],
      [0, true],
      [0, false],
    ]);
  });

  test('a window with no traffic is skipped; one with calls but no ok reply fails', () => {
    const idle = record(1, [], { sent: 0 });
    const r = run(['latency[1s]:p(99)<250'], [record(0, [GOOD]), idle, record(2, [GOOD])]);
    expect(r[0]).toMatchObject({ pass: true, observed: 1, window: { startIndex: 0 } });
    const allTimeouts = record(1, [cell('balance', 'timeout', repeat(10_000_000, 3))]);
    const r2 = run(['latency[1s]:p(99)<250', 'latency:p(99)<250'], [record(0, [GOOD]), allTimeouts, record(2, [GOOD])]);
    expect(r2[0]).toMatchObject({ pass: false, observed: null, window: { startIndex: 1, value: null } });
    expect(r2[1]).toMatchObject({ pass: true, observed: 1 });
    // Requests still in flight make a second without replies count.
    const hung = record(1, [], { sent: 0, inFlight: 40 });
    expect(run(['latency[1s]:p(99)<250'], [record(0, [GOOD]), hung])[0]).toMatchObject({ pass: false, window: { startIndex: 1 } });
  });

  test('a run shorter than its window is judged on the window it has', () => {
    const r = run(['latency[1m]:max<250'], [record(0, [GOOD]), record(1, [BAD])]);
    expect(r[0]).toEqual({ threshold: 'latency[1m]:max<250', server: 'electrumx', observed: BAD_MS, unit: 'ms', pass: false, window: { startIndex: 0, intervals: 60, value: BAD_MS } });
  });

  test('sliding windows equal a from-scratch merge of each window (values spanning ranges, so subtraction resizes)', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const perInterval = Array.from({ length: 40 }, () => Array.from({ length: 20 + Math.floor(rand() * 30) }, () => Math.floor(10 ** (2 + rand() * 5))));
    const recs = perInterval.map((vs, i) => record(i, [cell('balance', 'ok', vs)]));
    const W = 4;
    const aggs = ['p(50)', 'p(99)', 'max', 'min', 'avg'] as const;
    const results = run(
      aggs.map((a) => `latency[${W}s]:${a}<0`),
      recs,
    );
    for (const [k, a] of aggs.entries()) {
      let worst = -Infinity;
      let start = -1;
      for (let s = 0; s + W <= recs.length; s++) {
        const h = hdr.build({ numberOfSignificantValueDigits: 3 });
        for (const vs of perInterval.slice(s, s + W)) for (const v of vs) h.recordValue(v);
        const us = a === 'p(50)' ? h.getValueAtPercentile(50) : a === 'p(99)' ? h.getValueAtPercentile(99) : a === 'max' ? h.getValueAtPercentile(100) : a === 'min' ? h.getValueAtPercentile(0) : h.mean;
        if (us / 1000 > worst) [worst, start] = [us / 1000, s];
      }
      expect(results[k].window).toEqual({ startIndex: start, intervals: W, value: expect.closeTo(worst, 9) });
    }
  });
});

describe('abortOnFail', () => {
  test('a windowed threshold stops the run at the interval that fails it, not before', () => {
    const t = createThresholdTracker(['latency[1s]:p(99)<500', 'latency[1s]:p(99)<250,abortOnFail']);
    const recs = tenSecondsWithOneBad();
    for (const r of recs.slice(0, 4)) {
      t.observe(r);
      expect(t.shouldAbort()).toBeNull();
    }
    t.observe(recs[4]);
    expect(t.shouldAbort()).toEqual({ threshold: 'latency[1s]:p(99)<250,abortOnFail', server: 'electrumx', index: 4, observed: BAD_MS });
    t.observe(recs[5]);
    expect(t.shouldAbort()).toMatchObject({ index: 4 });
  });

  test('a whole-run threshold waits delayAbortEvalSeconds (5) intervals', () => {
    const withError = record(1, [GOOD, cell('balance', 'disconnect', [5000])]);
    const recs = [record(0, [GOOD]), withError, record(2, [GOOD]), record(3, [GOOD]), record(4, [GOOD]), record(5, [GOOD])];
    const t = createThresholdTracker(['errors:count<1,abortOnFail']);
    for (const r of recs.slice(0, 4)) {
      t.observe(r);
      expect(t.shouldAbort()).toBeNull();
    }
    t.observe(recs[4]);
    expect(t.shouldAbort()).toEqual({ threshold: 'errors:count<1,abortOnFail', server: 'electrumx', index: 4, observed: 1 });

    const quick = createThresholdTracker(['errors:count<1,abortOnFail'], { delayAbortEvalSeconds: 1 });
    quick.observe(recs[0]);
    expect(quick.shouldAbort()).toBeNull();
    quick.observe(recs[1]);
    expect(quick.shouldAbort()).toMatchObject({ index: 1 });
  });

  test('failing thresholds without abortOnFail never stop the run', () => {
    const t = createThresholdTracker(['latency[1s]:p(99)<250', 'errors:count<0']);
    for (const r of tenSecondsWithOneBad()) t.observe(r);
    expect(t.shouldAbort()).toBeNull();
    expect(t.results().every((r) => !r.pass)).toBe(true);
  });
});

describe('servers and output', () => {
  test('each server is judged on its own intervals, threshold by threshold', () => {
    const t = createThresholdTracker(['errors:rate<0.01', 'latency:p(99)<250'], { servers: ['electrumx', 'electrs', 'fulcrum'] });
    for (let i = 0; i < 3; i++) {
      t.observe(record(i, [GOOD]));
      t.observe(record(i, [cell('history', 'ok', repeat(12_300, 97)), cell('history', 'throttled', repeat(50, 3))], { server: 'electrs' }));
    }
    const r = t.results();
    expect(r.map((x) => [x.threshold, x.server, x.observed, x.pass])).toEqual([
      ['errors:rate<0.01', 'electrumx', 0, true],
      ['errors:rate<0.01', 'electrs', 0.03, false],
      ['errors:rate<0.01', 'fulcrum', 0, true],
      ['latency:p(99)<250', 'electrumx', 1, true],
      ['latency:p(99)<250', 'electrs', reportedMs(12_300), true],
      ['latency:p(99)<250', 'fulcrum', null, false],
    ]);
    expect(t.format()).toBe(formatThresholdResults(r));
  });

  test('k6-style lines', () => {
    const lines = formatThresholdResults([
      { threshold: 'latency:p(99)<250,abortOnFail', server: 'electrumx', observed: 12.3456, unit: 'ms', pass: true },
      { threshold: 'latency:p(99)<250', server: 'electrs', observed: 1, unit: 'ms', pass: true },
      { threshold: 'errors:rate<0.01', server: 'electrs', observed: 0.034, unit: 'ratio', pass: false },
      { threshold: 'dropped:count==0', server: 'electrs', observed: 7, unit: 'count', pass: false },
      { threshold: 'rps:avg>=190', server: 'electrs', observed: 187.25, unit: 'per-second', pass: false },
      { threshold: 'latency[3s]:p(99)<250', server: 'electrs', observed: 300.031, unit: 'ms', pass: false, window: { startIndex: 2, intervals: 3, value: 300.031 } },
      { threshold: 'latency:p(99)<250', server: 'fulcrum', observed: null, unit: 'ms', pass: false },
    ]);
    expect(lines.split('\n')).toEqual([
      '✓ latency:p(99)<250 [electrumx] 12.3ms',
      '✓ latency:p(99)<250 [electrs] 1.00ms',
      '✗ errors:rate<0.01 [electrs] 0.034',
      '✗ dropped:count==0 [electrs] 7',
      '✗ rps:avg>=190 [electrs] 187.3/s',
      '✗ latency[3s]:p(99)<250 [electrs] 300.0ms (worst 3s window from 2s)',
      '✗ latency:p(99)<250 [fulcrum] no data',
    ]);
  });
});

test('state stays bounded: 10,000 intervals keep at most the window', () => {
  const t = createThresholdTracker(['latency[30s]:p(99)<250', 'errors[5s]:rate<0.5', 'latency:p(99)<250', 'rps:avg>0']);
  // One second of nothing but slow calls: 100 of the 3,000 in each 30 s window holding it.
  const slow = cell('balance', 'ok', repeat(300_000, 100));
  let most = 0;
  for (let i = 0; i < 10_000; i++) {
    t.observe(record(i, [i === 7000 ? slow : GOOD]));
    most = Math.max(most, t.retainedIntervals());
  }
  expect(most).toBe(30);
  expect(t.results().map((r) => [r.observed, r.pass, r.window?.startIndex])).toEqual([
    [BAD_MS, false, 6971],
    [0, true, 0],
    [1, true, undefined],
    [100, true, undefined],
  ]);
});
