import { notificationsByPhase, phaseAt, resourcesByPhase, stayedUp, type AbuseWindow } from '../../../../src/engine/abuse/server-phases';
import type { ResourceRow } from '../../../../src/core/resource-row';

const w: AbuseWindow = { fromMs: 0, startMs: 10_000, endMs: 20_000, toMs: 30_000 };

/** A reading at `atMs` of a process `pid` with `cpuS` CPU-seconds so far, or gone (null). */
function reading(atMs: number, p: { pid?: number; cpuS: number; rssMiB: number; threads: number; fds: number } | null): ResourceRow {
  return {
    target: 'electrs',
    atMs,
    proc: p && { pids: [p.pid ?? 100], cpuUserS: p.cpuS * 0.75, cpuSystemS: p.cpuS * 0.25, rssBytes: p.rssMiB * 1024 * 1024, peakRssBytes: 0, readBytes: 0, writeBytes: 0, readCalls: 0, writeCalls: 0, fds: p.fds, threads: p.threads },
    datadirBytes: null,
    host: null,
    metrics: [],
  };
}

it('puts an instant in the phase it falls in, the abuse start and end belonging to the later phase', () => {
  expect([-1, 0, 9_999, 10_000, 19_999, 20_000, 30_000, 30_001].map((t) => phaseAt(t, w))).toEqual([null, 'before', 'before', 'during', 'during', 'after', 'after', null]);
});

it("splits a process's readings by phase: CPU as a share of a core between each phase's first and last reading, the largest RSS, threads and open files", () => {
  const rows = [
    reading(-500, { cpuS: 0, rssMiB: 900, threads: 900, fds: 900 }), // before the arrivals: left out
    reading(1_000, { cpuS: 1, rssMiB: 10, threads: 8, fds: 20 }),
    reading(5_000, { cpuS: 2, rssMiB: 12, threads: 8, fds: 21 }),
    reading(9_000, { cpuS: 3, rssMiB: 11, threads: 9, fds: 22 }),
    reading(11_000, { cpuS: 3.5, rssMiB: 40, threads: 300, fds: 320 }),
    reading(19_000, { cpuS: 7.5, rssMiB: 60, threads: 308, fds: 330 }),
    reading(21_000, { cpuS: 7.6, rssMiB: 30, threads: 9, fds: 23 }),
  ];
  const r = resourcesByPhase('electrs', rows.reverse(), w);
  if (!r.sampled) throw new Error('sampled');
  expect(r.restarted).toBe(false);
  expect(r.phases.before).toEqual({ readings: 3, gone: 0, cpuShare: 0.25, rssMaxBytes: 12 * 1024 * 1024, threadsMax: 9, fdsMax: 22 });
  expect(r.phases.during).toEqual({ readings: 2, gone: 0, cpuShare: 0.5, rssMaxBytes: 60 * 1024 * 1024, threadsMax: 308, fdsMax: 330 });
  // One reading spans no time: no CPU share rather than a made-up one.
  expect(r.phases.after).toEqual({ readings: 1, gone: 0, cpuShare: null, rssMaxBytes: 30 * 1024 * 1024, threadsMax: 9, fdsMax: 23 });
  expect(stayedUp(r, true)).toBe(true);
});

it('a process gone during the abuse, or back under another pid, did not stay up, whatever it answered', () => {
  const gone = resourcesByPhase('electrs', [reading(1_000, { cpuS: 1, rssMiB: 10, threads: 8, fds: 20 }), reading(12_000, null), reading(22_000, null)], w);
  if (!gone.sampled) throw new Error('sampled');
  expect([gone.phases.during.gone, gone.phases.during.threadsMax, gone.phases.after.cpuShare]).toEqual([1, null, null]);
  expect(stayedUp(gone, false)).toBe(false);
  const restarted = resourcesByPhase('electrs', [reading(11_000, { cpuS: 9, rssMiB: 10, threads: 8, fds: 20 }), reading(19_000, { pid: 200, cpuS: 0.5, rssMiB: 5, threads: 4, fds: 10 })], w);
  if (!restarted.sampled) throw new Error('sampled');
  expect(restarted.restarted).toBe(true);
  // The counters started again with the new process: no share across the restart.
  expect(restarted.phases.during.cpuShare).toBeNull();
  expect(stayedUp(restarted, true)).toBe(false);
});

it('a server not sampled stayed up only as far as it answered after the abuse', () => {
  const none = { sampled: false as const, why: 'remote' };
  expect(stayedUp(none, true)).toBe(true);
  expect(stayedUp(none, false)).toBeNull();
});

it("counts each block's headers notifications in the phase it was asked for in", () => {
  const n = notificationsByPhase(
    [
      { askedMs: 5_000, expected: 3, ok: 3, missing: 0, latenciesMs: [10, 12, 11] },
      { askedMs: 15_000, expected: 3, ok: 1, missing: 2, latenciesMs: [900] },
      { askedMs: 25_000, expected: 3, ok: 3, missing: 0, latenciesMs: [20, 30, 25] },
      { askedMs: 31_000, expected: 3, ok: 0, missing: 3, latenciesMs: [] }, // after the arrivals: left out
    ],
    w,
  );
  expect(n.before).toEqual({ blocks: 1, expected: 3, ok: 3, missing: 0, p50Ms: 11, p99Ms: 12 });
  expect(n.during).toEqual({ blocks: 1, expected: 3, ok: 1, missing: 2, p50Ms: 900, p99Ms: 900 });
  expect([n.after.blocks, n.after.missing, n.after.p50Ms]).toEqual([1, 0, 25]);
});

it('a phase with no block says so: none expected, no delay', () => {
  const n = notificationsByPhase([{ askedMs: 5_000, expected: 2, ok: 2, missing: 0, latenciesMs: [1, 2] }], w);
  expect(n.during).toEqual({ blocks: 0, expected: 0, ok: 0, missing: 0, p50Ms: null, p99Ms: null });
});
