/**
 * What an abuse cost the ordinary clients beside it: their units split into three phases by when
 * each was due (before the abuse started, while it ran, after it ended), each phase's p50/p99,
 * answers and errors; whether the server still answered during and after; and how long after the
 * abuse ended the ordinary clients were served normally again.
 */
import { sortedLine } from '../../core/percentile-line';

/** One ordinary unit as the collateral sees it: when it was due (epoch ms), how long it took, how it ended. */
export interface OrdinaryUnit {
  dueMs: number;
  latencyMs: number;
  status: string;
}

export interface PhaseFigures {
  units: number;
  ok: number;
  /** Units that ended otherwise, by how. */
  errors: Record<string, number>;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface Collateral {
  before: PhaseFigures;
  during: PhaseFigures;
  after: PhaseFigures;
  /** The server answered an ordinary unit while the abuse ran, and after it ended. */
  answeredDuring: boolean;
  answeredAfter: boolean;
  /**
   * Seconds from the abuse's end to the first unit from which every later one was ok and no slower
   * than twice the before phase's p99; null when the run ended before that (not recovered).
   */
  recoveredAfterS: number | null;
}

function phase(units: OrdinaryUnit[]): PhaseFigures {
  const errors: Record<string, number> = {};
  const okMs: number[] = [];
  for (const u of units) {
    if (u.status === 'ok') okMs.push(u.latencyMs);
    else errors[u.status] = (errors[u.status] ?? 0) + 1;
  }
  const line = sortedLine(okMs.sort((a, b) => a - b));
  return { units: units.length, ok: okMs.length, errors, p50Ms: line.p50, p99Ms: line.p99 };
}

export function collateralOf(units: OrdinaryUnit[], abuse: { startMs: number; endMs: number }): Collateral {
  const before = units.filter((u) => u.dueMs < abuse.startMs);
  const during = units.filter((u) => u.dueMs >= abuse.startMs && u.dueMs < abuse.endMs);
  const after = units.filter((u) => u.dueMs >= abuse.endMs).sort((a, b) => a.dueMs - b.dueMs);
  const b = phase(before);
  // Normal is the before phase's p99 twice over; with no before phase, any answer is.
  const normalMs = b.p99Ms === null ? Infinity : 2 * b.p99Ms;
  let lastBad = -1;
  after.forEach((u, i) => {
    if (u.status !== 'ok' || u.latencyMs > normalMs) lastBad = i;
  });
  const recoveredAt = lastBad + 1 < after.length ? after[lastBad + 1].dueMs : null;
  return {
    before: b,
    during: phase(during),
    after: phase(after),
    answeredDuring: during.some((u) => u.status === 'ok'),
    answeredAfter: after.some((u) => u.status === 'ok'),
    recoveredAfterS: recoveredAt === null ? null : Math.max(0, recoveredAt - abuse.endMs) / 1000,
  };
}
