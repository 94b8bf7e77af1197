/** One closed second of one server as outputs read it: outcomes added up over methods, and the ok replies' latency; and the same per method (or unit). */
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
  /** Per method (or unit) that had any: ok and failed (not dropped) counts, the ok replies' latency (µs; each cell decoded once). */
  units: Map<string, { ok: number; errors: number; latency: hdr.Histogram | null }>;
}

export function secondOf(r: AnyIntervalRecord): Second {
  const outcomes = new Map<string, number>();
  const latency = newHistogram();
  const units: Second['units'] = new Map();
  for (const c of r.cells) {
    outcomes.set(c.outcome, (outcomes.get(c.outcome) ?? 0) + c.count);
    if (c.outcome === 'dropped') continue;
    let unit = units.get(c.method);
    if (!unit) units.set(c.method, (unit = { ok: 0, errors: 0, latency: null }));
    if (c.outcome !== 'ok') {
      unit.errors += c.count;
      continue;
    }
    unit.ok += c.count;
    if (c.latency === null) continue;
    const cell = hdr.decodeFromCompressedBase64(c.latency);
    latency.add(cell);
    if (unit.latency) unit.latency.add(cell);
    else unit.latency = cell;
  }
  const errors = Object.fromEntries([...outcomes].filter(([k]) => k !== 'ok' && k !== 'dropped'));
  return { answered: answeredOf(outcomes), ok: outcomes.get('ok') ?? 0, errors, errorCount: Object.values(errors).reduce((a, b) => a + b, 0), latency, units };
}
