/** Two abused servers' records as a wallet load stores them: one sampled and notified, one neither, fallen over. */
import type { AbuseRecord } from '../../src/store/abuse';

const MiB = 1024 * 1024;

export const sampled: AbuseRecord = {
  server: 'alpha',
  profile: 'idle-connections',
  spec: 'idle-connections:connections=1000',
  window: { fromMs: 1_000, startMs: 7_000, endMs: 17_000, toMs: 25_000 },
  tally: { connections: 1000, refused: 0, closedByServer: 0, bytesSent: 0, requestsSent: 0, replies: 0, errorReplies: 0 },
  answeredDuring: true,
  answeredAfter: true,
  stayedUp: true,
  recoveredAfterS: 0.4,
  sampledTarget: 'alpha',
  notSampledWhy: null,
  notificationsWhy: null,
  phases: [
    { phase: 'before', units: 12, ok: 12, errors: {}, p50Ms: 2500, p99Ms: 5800, notifications: { blocks: 1, expected: 5, ok: 5, missing: 0, p50Ms: 63, p99Ms: 70 }, resources: { readings: 5, gone: 0, cpuShare: 0.15, rssMaxBytes: 20 * MiB, threadsMax: 25, fdsMax: 56 } },
    { phase: 'during', units: 21, ok: 20, errors: { timeout: 1 }, p50Ms: 2200, p99Ms: 9100, notifications: { blocks: 1, expected: 5, ok: 3, missing: 2, p50Ms: 20, p99Ms: 21 }, resources: { readings: 10, gone: 0, cpuShare: 0.3, rssMaxBytes: 51 * MiB, threadsMax: 1026, fdsMax: 2062 } },
    { phase: 'after', units: 15, ok: 15, errors: {}, p50Ms: 2700, p99Ms: 5000, notifications: { blocks: 1, expected: 5, ok: 5, missing: 0, p50Ms: 15, p99Ms: 18 }, resources: { readings: 8, gone: 0, cpuShare: 0.12, rssMaxBytes: 26 * MiB, threadsMax: 25, fdsMax: 60 } },
  ],
};

export const remote: AbuseRecord = {
  ...sampled,
  server: 'beta',
  profile: 'subscription-flood',
  spec: 'subscription-flood',
  stayedUp: false,
  answeredAfter: false,
  recoveredAfterS: null,
  sampledTarget: null,
  notSampledWhy: 'no process known for it',
  notificationsWhy: 'no blocks mined (--notify not given)',
  phases: sampled.phases.map((p) => ({ ...p, notifications: null, resources: null })),
};
