/**
 * Adding the shards' seconds of one server into one: the shards ran on one schedule clock, so
 * their intervals that start in the same whole epoch second are the same second of the test.
 */
import * as hdr from 'hdr-histogram-js';
import type { IntervalCell, IntervalRecord } from '../../core/load-types';
import { UserError } from '../../core/user-error';
import { sumOf } from './hdr-intervals';

export type StoredInterval = IntervalRecord & { step: number | null };

/** Where a record came from, for error messages: "FILE run N". */
export interface Sourced {
  source: string;
  rec: StoredInterval;
}

export const secondOf = (startMs: number): number => Math.floor(startMs / 1000);

/**
 * The shards' streams (each in time order) walked together, one epoch second at a time, each
 * second with every record that starts in it. Streams are read lazily: memory holds one second.
 */
export function* alignedSeconds(streams: Array<{ source: string; it: Iterator<StoredInterval> }>): Generator<{ second: number; records: Sourced[] }> {
  const heads = streams.map((s) => ({ ...s, head: s.it.next() }));
  for (;;) {
    let second = Infinity;
    for (const h of heads) if (!h.head.done) second = Math.min(second, secondOf(h.head.value.startMs));
    if (second === Infinity) return;
    const records: Sourced[] = [];
    for (const h of heads) {
      while (!h.head.done && secondOf(h.head.value.startMs) === second) {
        records.push({ source: h.source, rec: h.head.value });
        h.head = h.it.next();
      }
    }
    yield { second, records };
  }
}

/**
 * One second of the whole test: counters and histograms added, the generator's loop delay the
 * worst shard's (a p99 of one process cannot be added to another's), the target rate the sum of
 * the shards' shares.
 */
export function sumSecond(server: string, index: number, second: number, records: Sourced[]): StoredInterval {
  const recs = records.map((r) => r.rec);
  const sumOrNull = (values: Array<number | null>): number | null => (values.every((v) => v === null) ? null : values.reduce<number>((a, v) => a + (v ?? 0), 0));
  const cells = new Map<string, { cell: IntervalCell; latency: Array<{ b64: string; source: string }>; service: Array<{ b64: string; source: string }> }>();
  for (const { source, rec } of records) {
    for (const c of rec.cells) {
      const key = `${c.method}\0${c.outcome}`;
      let acc = cells.get(key);
      if (!acc) cells.set(key, (acc = { cell: { method: c.method, outcome: c.outcome, count: 0, bytes: 0, latency: null, service: null }, latency: [], service: [] }));
      acc.cell.count += c.count;
      acc.cell.bytes += c.bytes;
      if (c.latency !== null) acc.latency.push({ b64: c.latency, source: `${source}, server ${server}, ${c.method} ${c.outcome} latency at second ${rec.index}` });
      if (c.service !== null) acc.service.push({ b64: c.service, source: `${source}, server ${server}, ${c.method} ${c.outcome} service time at second ${rec.index}` });
    }
  }
  return {
    server,
    index,
    startMs: second * 1000,
    lengthMs: Math.max(...recs.map((r) => r.lengthMs)),
    targetRate: sumOrNull(recs.map((r) => r.targetRate)),
    vus: sumOrNull(recs.map((r) => r.vus)),
    sent: recs.reduce((a, r) => a + r.sent, 0),
    dropped: recs.reduce((a, r) => a + r.dropped, 0),
    inFlight: recs.reduce((a, r) => a + r.inFlight, 0),
    lag: addHistograms(records.filter((r) => r.rec.lag !== null).map((r) => ({ b64: r.rec.lag!, source: `${r.source}, server ${server}, lag at second ${r.rec.index}` }))),
    loopDelayP99Us: Math.max(...recs.map((r) => r.loopDelayP99Us)),
    cells: [...cells.values()].map(({ cell, latency, service }) => ({ ...cell, latency: addHistograms(latency), service: addHistograms(service) })),
    step: recs.find((r) => r.step !== null)?.step ?? null,
  };
}

/** Null when no shard had one; a single shard's histogram is kept byte for byte. */
function addHistograms(parts: Array<{ b64: string; source: string }>): string | null {
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0].b64;
  const decoded = parts.map((p) => {
    try {
      return hdr.decodeFromCompressedBase64(p.b64);
    } catch (err) {
      throw new UserError(`merge: ${p.source}: unreadable histogram (${(err as Error).message})`);
    }
  });
  return hdr.encodeIntoCompressedBase64(sumOf(decoded));
}
