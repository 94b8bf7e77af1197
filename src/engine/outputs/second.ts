/** One closed second of one server as outputs read it: outcomes added up over methods, and the ok replies' latency. */
import * as hdr from 'hdr-histogram-js';
import type { AnyIntervalRecord } from '../../core/load-types';
import { answeredOf } from '../../core/outcomes';
import { newHistogram } from '../sinks/hdr-intervals';

export interface Second {
  answered: number;
  ok: number;
  /** Failed requests by category (not ok, not dropped). */
  errors: Record<string, number>;
  errorCount: number;
  /** The ok replies' latency, µs. */
  latency: hdr.Histogram;
}

export function secondOf(r: AnyIntervalRecord): Second {
  const outcomes = new Map<string, number>();
  const latency = newHistogram();
  for (const c of r.cells) {
    outcomes.set(c.outcome, (outcomes.get(c.outcome) ?? 0) + c.count);
    if (c.outcome === 'ok' && c.latency !== null) latency.add(hdr.decodeFromCompressedBase64(c.latency));
  }
  const errors = Object.fromEntries([...outcomes].filter(([k]) => k !== 'ok' && k !== 'dropped'));
  return { answered: answeredOf(outcomes), ok: outcomes.get('ok') ?? 0, errors, errorCount: Object.values(errors).reduce((a, b) => a + b, 0), latency };
}
