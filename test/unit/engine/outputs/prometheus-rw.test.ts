import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as hdr from 'hdr-histogram-js';
import type { IntervalRecord } from '../../../../src/core/load-types';
import { newHistogram } from '../../../../src/engine/sinks/hdr-intervals';
import { CLASSIC_BOUNDS, LatencyBuckets, nativeBucketIndex, NATIVE_SCHEMA } from '../../../../src/engine/outputs/prometheus/latency-buckets';
import { decodeWriteRequest, encodeWriteRequest, type TimeSeries } from '../../../../src/engine/outputs/prometheus/write-request';
import { prometheusRemoteWrite, redactedUrl } from '../../../../src/engine/outputs/prometheus-rw';

function histogramOf(valuesUs: number[]): hdr.Histogram {
  const h = newHistogram();
  for (const v of valuesUs) h.recordValue(v);
  return h;
}

/** Expands spans + deltas back into (bucket index → count), as a receiver reads them. */
function bucketsOf(spans: Array<{ offset: number; length: number }>, deltas: number[]): Map<number, number> {
  const out = new Map<number, number>();
  let index = 0;
  let count = 0;
  let d = 0;
  spans.forEach((span, s) => {
    index = s === 0 ? span.offset : index + 1 + span.offset;
    for (let k = 0; k < span.length; k++, d++) {
      if (k > 0) index++;
      count += deltas[d];
      out.set(index, count);
    }
  });
  return out;
}

test('a native bucket i holds (2^((i-1)/32), 2^(i/32)] seconds', () => {
  expect(nativeBucketIndex(1)).toBe(0);
  expect(nativeBucketIndex(2)).toBe(2 ** NATIVE_SCHEMA);
  expect(nativeBucketIndex(0.5)).toBe(-(2 ** NATIVE_SCHEMA));
  const just = 2 ** (1 / 32);
  expect(nativeBucketIndex(just * 1.0001)).toBe(2);
  expect(nativeBucketIndex(just * 0.9999)).toBe(1);
});

test('latency buckets: the native histogram encodes every count, spans and deltas read back, classic buckets are cumulative', () => {
  const values = [50, 50, 51, 400, 400, 401, 402, 4_000, 90_000, 20_000_000];
  const buckets = new LatencyBuckets();
  buckets.add(histogramOf(values.slice(0, 5)));
  buckets.add(histogramOf(values.slice(5)));
  expect(buckets.count).toBe(values.length);
  const h = buckets.nativeHistogram(1000);
  expect(h.countInt).toBe(values.length);
  expect(h.zeroCountInt).toBe(0);
  const read = bucketsOf(h.positiveSpans, h.positiveDeltas);
  expect([...read.values()].reduce((a, b) => a + b, 0)).toBe(values.length);
  // Each value lands in the bucket its own index names.
  const expected = new Map<number, number>();
  for (const v of values) {
    const i = nativeBucketIndex(histogramOf([v]).maxValue / 1e6);
    expected.set(i, (expected.get(i) ?? 0) + 1);
  }
  expect(read).toEqual(expected);
  expect(h.sum).toBeCloseTo(values.reduce((a, b) => a + b, 0) / 1e6, 1);
  const classic = buckets.classicBuckets();
  expect(classic).toHaveLength(CLASSIC_BOUNDS.length + 1);
  expect(classic[classic.length - 1]).toEqual({ le: '+Inf', count: values.length });
  expect(classic.find((b) => b.le === '0.0001')!.count).toBe(3);
  expect(classic.find((b) => b.le === '0.0005')!.count).toBe(7);
  expect(classic.find((b) => b.le === '10')!.count).toBe(9); // 20 s is past the last bound
  for (let i = 1; i < classic.length; i++) expect(classic[i].count).toBeGreaterThanOrEqual(classic[i - 1].count);
});

test('a write request round-trips through protobuf and snappy', () => {
  const series: TimeSeries[] = [
    { labels: [{ name: '__name__', value: 'electrum_bench_requests_total' }, { name: 'server', value: 'fulcrum' }], samples: [{ value: 42, timestamp: 1_700_000_000_123 }] },
    { labels: [{ name: '__name__', value: 'electrum_bench_request_duration_seconds' }], histograms: [new LatencyBuckets().nativeHistogram(1_700_000_000_123)] },
  ];
  const decoded = decodeWriteRequest(encodeWriteRequest(series));
  expect(decoded.timeseries[0].labels).toEqual(series[0].labels);
  expect(decoded.timeseries[0].samples).toEqual(series[0].samples);
  expect(decoded.timeseries[1].histograms![0].schema).toBe(NATIVE_SCHEMA);
});

test('redactedUrl drops the user and password', () => {
  expect(redactedUrl(new URL('https://me:secret@example.org:9090/api/v1/write'))).toBe('https://example.org:9090/api/v1/write');
});

function record(second: number, okUs: number[], timeouts: number): IntervalRecord {
  return {
    server: 'fulcrum',
    index: second,
    startMs: 1_700_000_000_000 + second * 1000,
    lengthMs: 1000,
    targetRate: 10,
    vus: null,
    sent: okUs.length + timeouts,
    dropped: 0,
    inFlight: 0,
    lag: hdr.encodeIntoCompressedBase64(histogramOf([30, 40])),
    loopDelayP99Us: 800,
    cells: [
      { method: 'balance', outcome: 'ok', count: okUs.length, bytes: 0, latency: hdr.encodeIntoCompressedBase64(histogramOf(okUs)), service: null },
      ...(timeouts ? [{ method: 'balance' as const, outcome: 'timeout' as const, count: timeouts, bytes: 0, latency: null, service: null }] : []),
    ],
  };
}

test('the output posts each interval with the remote-write headers, counters cumulative, labels sorted, basic auth from the URL', async () => {
  const bodies: Array<{ headers: http.IncomingHttpHeaders; series: TimeSeries[] }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ headers: req.headers, series: decodeWriteRequest(Buffer.concat(chunks)).timeseries });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://bench:pw@127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/write`;
    expect(prometheusRemoteWrite.validate(url)).toEqual([]);
    const output = prometheusRemoteWrite.create(url);
    output.start({ run: 7, shard: '2/4' });
    output.interval(record(0, [100, 200, 300], 1));
    output.interval(record(1, [150], 2));
    await output.end({});
    expect(bodies).toHaveLength(2);
    const { headers } = bodies[0];
    expect(headers['content-encoding']).toBe('snappy');
    expect(headers['content-type']).toBe('application/x-protobuf');
    expect(headers['x-prometheus-remote-write-version']).toBe('0.1.0');
    expect(headers.authorization).toBe(`Basic ${Buffer.from('bench:pw').toString('base64')}`);
    const value = (series: TimeSeries[], name: string, outcome?: string) =>
      series.find((s) => s.labels.some((l) => l.name === '__name__' && l.value === name) && (!outcome || s.labels.some((l) => l.name === 'outcome' && l.value === outcome)));
    const last = bodies[1].series;
    expect(value(last, 'electrum_bench_requests_total', 'ok')!.samples![0]).toEqual({ value: 4, timestamp: 1_700_000_002_000 });
    expect(value(last, 'electrum_bench_requests_total', 'timeout')!.samples![0].value).toBe(3);
    expect(value(last, 'electrum_bench_request_duration_seconds')!.histograms![0].countInt).toBe(4);
    for (const s of last) {
      const names = s.labels.map((l) => l.name);
      expect(names).toEqual([...names].sort());
      expect(s.labels).toEqual(expect.arrayContaining([{ name: 'run', value: '7' }, { name: 'shard', value: '2/4' }, { name: 'job', value: 'electrum-bench' }]));
    }
  } finally {
    server.close();
  }
});

test('a receiver that never answers neither slows the run nor holds its end: the end comes within 2 s, saying what was not sent', async () => {
  const sockets = new Set<import('node:net').Socket>();
  const silent = http.createServer(() => undefined);
  silent.on('connection', (s) => sockets.add(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const said: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    said.push(String(chunk));
    return true;
  });
  try {
    const output = prometheusRemoteWrite.create(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/api/v1/write`);
    output.start({ run: 1, shard: null });
    const t0 = Date.now();
    for (let s = 0; s < 5; s++) output.interval(record(s, [100], 0));
    expect(Date.now() - t0).toBeLessThan(1_000);
    await output.end({});
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(said.join('')).toMatch(/--out prometheus-rw=http:\/\/127\.0\.0\.1:\d+\/api\/v1\/write: 5 intervals not sent by the end/);
  } finally {
    spy.mockRestore();
    for (const s of sockets) s.destroy();
    silent.close();
  }
});
