/**
 * The one percentile line: monotone, never above the exact max, p99.9 only over 1,000 samples —
 * over random HdrHistograms (the shape the load engine records) and over sorted samples.
 */
import { OutageLog } from '../../../src/core/outages';
import { AnswerWatch } from '../../../src/core/stopped-answering';
import { newHistogram } from '../../../src/engine/sinks/hdr-intervals';
import { seededRandom } from '../../../src/core/random';
import { histogramAt, histogramLine, P999_MIN_SAMPLES, percentileLine, sortedLine, type PercentileLine } from '../../../src/core/percentile-line';
import { percentileSpectrum } from '../../../src/report/spectrum';
import { summarise } from '../../../src/engine/summary';

function expectHonest(line: PercentileLine): void {
  const values = [line.p50, line.p90, line.p99, line.p999].filter((v): v is number => v !== null);
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]);
  for (const v of values) expect(v).toBeLessThanOrEqual(line.max!);
  if (line.count < P999_MIN_SAMPLES) expect(line.p999).toBeNull();
  else expect(line.p999).not.toBeNull();
}

test('the issue’s case: an HdrHistogram bucket’s top is above the exact max; the line caps it', () => {
  const h = newHistogram();
  for (let i = 0; i < 200; i++) h.recordValue(8796); // µs, all in one bucket whose top is 8799
  expect(h.getValueAtPercentile(99)).toBeGreaterThan(h.maxValue); // what was printed raw
  const line = histogramLine(h, 1000);
  expect(line.p99).toBe(8.796);
  expect(line.max).toBe(8.796);
  expect(line.p999).toBeNull(); // 200 samples
  expect(histogramAt(h, 99, 1000)).toBe(8.796);
});

test('property: over random HdrHistograms every line is monotone, ≤ max, and p99.9 only from 1,000 samples', () => {
  const rand = seededRandom('percentile-line');
  for (let run = 0; run < 300; run++) {
    const h = newHistogram();
    const n = 1 + Math.floor(rand() ** 2 * 3000);
    const scale = 10 ** (1 + rand() * 6); // 10 µs … 10 s
    for (let i = 0; i < n; i++) {
      // A body plus a rare far tail, and repeated values (the case that tops a bucket).
      const v = rand() < 0.02 ? scale * (5 + rand() * 50) : rand() < 0.3 ? scale : scale * (0.5 + rand());
      h.recordValue(Math.max(1, Math.round(v)));
    }
    const line = histogramLine(h, 1000);
    expect(line.count).toBe(n);
    expect(line.max).toBe(h.maxValue / 1000);
    expectHonest(line);
    // The report's percentile plot obeys the same caps.
    const spectrum = percentileSpectrum(h);
    for (let i = 1; i < spectrum.length; i++) expect(spectrum[i].ms).toBeGreaterThanOrEqual(spectrum[i - 1].ms);
    for (const p of spectrum) expect(p.ms).toBeLessThanOrEqual(h.maxValue / 1000);
  }
});

test('sorted samples: nearest rank, p99.9 from the 1,000th sample on; empty is all null', () => {
  const xs = Array.from({ length: 999 }, (_, i) => i + 1);
  const l = sortedLine(xs);
  expect([l.p50, l.p90, l.p99, l.p999, l.max]).toEqual([500, 900, 990, null, 999]);
  const m = sortedLine([...xs, 1000]);
  expect([m.p50, m.p99, m.p999, m.max]).toEqual([500, 990, 999, 1000]);
  expect(sortedLine([])).toEqual({ count: 0, p50: null, p90: null, p99: null, p999: null, max: null });
  // Raw quantiles that are out of order or above the max (as a broken source could give) are made honest.
  expectHonest(percentileLine(5000, (q) => (q === 0.9 ? 1 : 100 * q), 50));
});

test('the load summary prints its percentiles through the line: p99 ≤ max, no p99.9 under 1,000 replies', () => {
  const latency = newHistogram();
  for (let i = 0; i < 200; i++) latency.recordValue(8796);
  const totals = { sent: 200, dropped: 0, byOutcome: new Map([['ok', 200]]), latency, service: latency, lag: newHistogram(), bytes: 0, perMethod: new Map(), outages: new OutageLog(), answers: new AnswerWatch() };
  const s = summarise({ server: 's', url: 'tcp://x', software: 'x', protocol: '1.4', durationMs: 1000, startedAtMs: 0, totals, generator: {} as never, refused: 0, firstRefusedAtMs: null, onsetMs: {}, intervals: 1, lateReplies: 0, status: 'interrupted' } as never);
  expect(s.latencyMs.p99).toBeLessThanOrEqual(s.latencyMs.max!);
  expect(s.latencyMs.p99).toBe(8.796);
  expect(s.latencyMs.p999).toBeNull();
});
