/**
 * What the abused server itself did before, during and after the abuse: its process as the run's
 * resource sampler read it (src/resources/), and the held wallets' notifications of the blocks
 * mined in each phase. The phases are the collateral's: before the abuse started, while it ran,
 * after it ended until the arrivals did.
 */
import type { ResourceRow } from '../../core/resource-row';
import { sortedLine } from '../../core/percentile-line';

export const PHASES = ['before', 'during', 'after'] as const;
export type Phase = (typeof PHASES)[number];

/** Epoch ms: the arrivals' start, the abuse's start and end, the arrivals' end. */
export interface AbuseWindow {
  fromMs: number;
  startMs: number;
  endMs: number;
  toMs: number;
}

/** The phase `atMs` falls in, or null outside the arrivals. */
export function phaseAt(atMs: number, w: AbuseWindow): Phase | null {
  if (atMs < w.fromMs || atMs > w.toMs) return null;
  return atMs < w.startMs ? 'before' : atMs < w.endMs ? 'during' : 'after';
}

export interface PhaseResources {
  /** Readings of the server's process in the phase, and those that found it gone. */
  readings: number;
  gone: number;
  /** CPU time over wall time between the phase's first and last readings: 1 is one core busy. */
  cpuShare: number | null;
  /** The largest reading in the phase of the process tree's resident memory, threads and open files. */
  rssMaxBytes: number | null;
  threadsMax: number | null;
  fdsMax: number | null;
}

export type ServerResources =
  | { sampled: true; target: string; phases: Record<Phase, PhaseResources>; restarted: boolean }
  | { sampled: false; why: string };

function phaseOf(rows: ResourceRow[]): PhaseResources {
  const up = rows.filter((r) => r.proc !== null);
  const max = (f: (r: ResourceRow) => number) => (up.length ? Math.max(...up.map(f)) : null);
  const first = up[0];
  const last = up[up.length - 1];
  const cpu = (r: ResourceRow) => r.proc!.cpuUserS + r.proc!.cpuSystemS;
  // A restart between the two readings starts the counters again: no share across it.
  const samePid = first && last && first.proc!.pids[0] === last.proc!.pids[0];
  const spanS = up.length >= 2 ? (last.atMs - first.atMs) / 1000 : 0;
  return {
    readings: rows.length,
    gone: rows.length - up.length,
    cpuShare: spanS > 0 && samePid ? Math.max(0, cpu(last) - cpu(first)) / spanS : null,
    rssMaxBytes: max((r) => r.proc!.rssBytes),
    threadsMax: max((r) => r.proc!.threads),
    fdsMax: max((r) => r.proc!.fds),
  };
}

/** `rows` (one target's readings, any order) split by phase; readings outside the arrivals are left out. */
export function resourcesByPhase(target: string, rows: ResourceRow[], w: AbuseWindow): ServerResources {
  const by: Record<Phase, ResourceRow[]> = { before: [], during: [], after: [] };
  const inWindow = rows.filter((r) => phaseAt(r.atMs, w) !== null).sort((a, b) => a.atMs - b.atMs);
  for (const r of inWindow) by[phaseAt(r.atMs, w)!].push(r);
  const roots = new Set(inWindow.flatMap((r) => (r.proc ? [r.proc.pids[0]] : [])));
  return {
    sampled: true,
    target,
    phases: { before: phaseOf(by.before), during: phaseOf(by.during), after: phaseOf(by.after) },
    restarted: roots.size > 1,
  };
}

/** One block mined while the wallets arrived: when it was asked for (epoch ms) and each held connection's headers notification. */
export interface PhaseBlock {
  askedMs: number;
  expected: number;
  ok: number;
  missing: number;
  /** Delays of the notifications that came, ms from the block's asking. */
  latenciesMs: number[];
}

export interface PhaseNotifications {
  blocks: number;
  expected: number;
  ok: number;
  missing: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

/** The blocks' headers notifications by the phase each block was asked for in. */
export function notificationsByPhase(blocks: PhaseBlock[], w: AbuseWindow): Record<Phase, PhaseNotifications> {
  const out = {} as Record<Phase, PhaseNotifications>;
  for (const p of PHASES) {
    const mine = blocks.filter((b) => phaseAt(b.askedMs, w) === p);
    const line = sortedLine(mine.flatMap((b) => b.latenciesMs).sort((a, b) => a - b));
    const sum = (f: (b: PhaseBlock) => number) => mine.reduce((n, b) => n + f(b), 0);
    out[p] = { blocks: mine.length, expected: sum((b) => b.expected), ok: sum((b) => b.ok), missing: sum((b) => b.missing), p50Ms: line.p50, p99Ms: line.p99 };
  }
  return out;
}

/**
 * Whether the server stayed up through the abuse: with its process sampled, found at every reading
 * and never restarted; otherwise, as far as its answers tell, whether it answered after the abuse
 * (null: it did not, and nothing else says whether it is down).
 */
export function stayedUp(resources: ServerResources, answeredAfter: boolean): boolean | null {
  if (resources.sampled) return !resources.restarted && PHASES.every((p) => resources.phases[p].gone === 0);
  return answeredAfter ? true : null;
}
