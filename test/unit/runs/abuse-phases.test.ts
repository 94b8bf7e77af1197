/**
 * An abused server's side once its wallet load has ended: its readings found by the target that
 * serves it (by the run's server names it lists, or by its own name), split by phase, and stored
 * as such; a server no sampled process serves is "not sampled" with why, its fate taken from its
 * answers, and stored with nulls, never zeros.
 */
import { abuseRecords, addServerPhases } from '../../../src/runs/abuse-phases';
import type { ServerLoadSummary } from '../../../src/wallet/load';
import type { ResourceRow } from '../../../src/core/resource-row';
import { collateralOf } from '../../../src/engine/abuse/collateral';
import { emptyTally } from '../../../src/engine/abuse/wire';

const window = { fromMs: 0, startMs: 10_000, endMs: 20_000, toMs: 30_000 };

function summary(server: string): ServerLoadSummary {
  const units = [1_000, 12_000, 25_000].map((dueMs) => ({ dueMs, latencyMs: 100, status: 'ok' }));
  return {
    server,
    held: 0,
    holdFailed: 0,
    holdSeconds: 0,
    rssPerHeldKiB: null,
    arrivals: null,
    notify: null,
    reconnects: null,
    loopDelayP99Ms: 1,
    abuse: { profile: 'idle-connections', spec: 'idle-connections', params: {}, startS: 10, endS: 20, tally: emptyTally(), collateral: collateralOf(units, window), window, notifications: null, notificationsWhy: 'no blocks mined (--notify not given)' },
  };
}

const reading = (target: string, atMs: number, threads: number): ResourceRow => ({
  target,
  atMs,
  proc: { pids: [7], cpuUserS: atMs / 10_000, cpuSystemS: 0, rssBytes: 1e6, peakRssBytes: 1e6, readBytes: 0, writeBytes: 0, readCalls: 0, writeCalls: 0, fds: threads * 2, threads },
  datadirBytes: null,
  host: null,
  metrics: [],
});

it("takes the readings of the lab process that serves the run's server, by the names it serves", () => {
  const s = summary('mine');
  const rows = [reading('electrs', 1_000, 5), reading('electrs', 5_000, 5), reading('electrs', 12_000, 300), reading('electrs', 18_000, 302), reading('other', 15_000, 9_999)];
  addServerPhases(s, [{ name: 'other' }, { name: 'electrs', pidFile: '/x', servers: ['mine'] }], rows);
  const res = s.abuse!.resources!;
  if (!res.sampled) throw new Error('sampled');
  expect([res.target, res.phases.before.threadsMax, res.phases.during.threadsMax, res.phases.during.fdsMax]).toEqual(['electrs', 5, 302, 604]);
  expect(res.phases.during.cpuShare).toBeCloseTo(0.1, 9);
  expect(s.abuse!.stayedUp).toBe(true);
  const [record] = abuseRecords([s]);
  expect([record.sampledTarget, record.notSampledWhy, record.phases.map((p) => p.resources?.threadsMax ?? null)]).toEqual(['electrs', null, [5, 302, null]]);
  expect(record.phases[2].resources).toEqual({ readings: 0, gone: 0, cpuShare: null, rssMaxBytes: null, threadsMax: null, fdsMax: null });
});

it('a --server-pid target is found by its own name', () => {
  const s = summary('mine');
  addServerPhases(s, [{ name: 'mine', pid: 7 }], [reading('mine', 12_000, 40)]);
  expect(s.abuse!.resources).toMatchObject({ sampled: true, target: 'mine' });
});

it('a server no sampled process serves is said not sampled, with why; stored as nulls, its fate from its answers', () => {
  const s = summary('far');
  addServerPhases(s, [{ name: 'electrs', servers: ['mine'] }], [reading('electrs', 12_000, 300)]);
  expect(s.abuse!.resources).toEqual({ sampled: false, why: expect.stringMatching(/no process known for it.*--server-pid/) });
  expect(s.abuse!.stayedUp).toBe(true); // it answered after the abuse
  const [record] = abuseRecords([s]);
  expect([record.sampledTarget, record.notSampledWhy, record.notificationsWhy]).toEqual([null, s.abuse!.resources!.sampled ? null : s.abuse!.resources!.why, 'no blocks mined (--notify not given)']);
  expect(record.phases.map((p) => [p.phase, p.units, p.resources, p.notifications])).toEqual([
    ['before', 1, null, null],
    ['during', 1, null, null],
    ['after', 1, null, null],
  ]);
});

it('a server without an abuse is left as it is, and stores nothing', () => {
  const s = { ...summary('plain'), abuse: undefined };
  addServerPhases(s, [], []);
  expect(s.abuse).toBeUndefined();
  expect(abuseRecords([s])).toEqual([]);
});
