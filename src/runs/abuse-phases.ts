/**
 * An abused server's side of the collateral once its wallet load has ended: its process split by
 * phase from the run's resource readings (or "not sampled", with why), whether it stayed up, and
 * the whole as the store keeps it.
 */
import type { ResourceRow, ResourceTarget } from '../resources/sampler';
import { PHASES, resourcesByPhase, stayedUp } from '../engine/abuse/server-phases';
import type { ServerLoadSummary } from '../wallet/load';
import type { AbuseRecord } from '../store/abuse';

/** Adds `s.abuse`'s resources per phase from the readings of the target that serves it. */
export function addServerPhases(s: ServerLoadSummary, targets: ResourceTarget[], readings: ResourceRow[]): void {
  const a = s.abuse;
  if (!a) return;
  const target = targets.find((t) => (t.servers ?? [t.name]).includes(s.server));
  a.resources = target
    ? resourcesByPhase(target.name, readings.filter((r) => r.target === target.name), a.window)
    : { sampled: false, why: 'no process known for it (not a lab server, and no --server-pid or --server-pidfile names it)' };
  a.stayedUp = stayedUp(a.resources, a.collateral.answeredAfter);
}

/** The abused servers' summaries as the store keeps them. */
export function abuseRecords(summaries: ServerLoadSummary[]): AbuseRecord[] {
  return summaries.flatMap((s) => {
    const a = s.abuse;
    if (!a) return [];
    const res = a.resources;
    return [
      {
        server: s.server,
        profile: a.profile,
        spec: a.spec,
        window: a.window,
        tally: { ...a.tally },
        answeredDuring: a.collateral.answeredDuring,
        answeredAfter: a.collateral.answeredAfter,
        stayedUp: a.stayedUp ?? null,
        recoveredAfterS: a.collateral.recoveredAfterS,
        sampledTarget: res?.sampled ? res.target : null,
        notSampledWhy: res && !res.sampled ? res.why : res ? null : 'not sampled',
        notificationsWhy: a.notificationsWhy ?? null,
        phases: PHASES.map((phase) => {
          const c = a.collateral[phase];
          return { phase, units: c.units, ok: c.ok, errors: c.errors, p50Ms: c.p50Ms, p99Ms: c.p99Ms, notifications: a.notifications?.[phase] ?? null, resources: res?.sampled ? res.phases[phase] : null };
        }),
      },
    ];
  });
}
