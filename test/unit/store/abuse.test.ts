/**
 * Abuse beside a wallet load in the store (migration 13): a database of version 12 upgrades and
 * takes the abuse's record; what was written comes back as it was, a phase without blocks or
 * without a sampled process as null, a server whose fate is unknown as null.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ResultsStore } from '../../../src/store/results';
import { migrate } from '../../../src/store/schema';
import { WalletStore } from '../../../src/store/wallets';
import { AbuseStore, type AbuseRecord } from '../../../src/store/abuse';

let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-abuse-store-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sampled: AbuseRecord = {
  server: 'electrs',
  profile: 'idle-connections',
  spec: 'idle-connections:connections=1000',
  window: { fromMs: 1_000, startMs: 7_000, endMs: 17_000, toMs: 25_000 },
  tally: { connections: 1000, refused: 0 },
  answeredDuring: true,
  answeredAfter: true,
  stayedUp: true,
  recoveredAfterS: 0.4,
  sampledTarget: 'electrs',
  notSampledWhy: null,
  notificationsWhy: null,
  phases: [
    { phase: 'before', units: 12, ok: 12, errors: {}, p50Ms: 2500, p99Ms: 5800, notifications: { blocks: 1, expected: 5, ok: 5, missing: 0, p50Ms: 63, p99Ms: 70 }, resources: { readings: 5, gone: 0, cpuShare: 0.15, rssMaxBytes: 20e6, threadsMax: 25, fdsMax: 56 } },
    { phase: 'during', units: 21, ok: 20, errors: { timeout: 1 }, p50Ms: 2200, p99Ms: 4500, notifications: { blocks: 1, expected: 5, ok: 3, missing: 2, p50Ms: 20, p99Ms: 21 }, resources: { readings: 10, gone: 0, cpuShare: 0.3, rssMaxBytes: 33e6, threadsMax: 1026, fdsMax: 2062 } },
    { phase: 'after', units: 15, ok: 15, errors: {}, p50Ms: 2700, p99Ms: 5000, notifications: { blocks: 0, expected: 0, ok: 0, missing: 0, p50Ms: null, p99Ms: null }, resources: { readings: 8, gone: 0, cpuShare: null, rssMaxBytes: 26e6, threadsMax: 25, fdsMax: 60 } },
  ],
};

const remote: AbuseRecord = {
  ...sampled,
  server: 'far',
  stayedUp: null,
  answeredAfter: false,
  recoveredAfterS: null,
  sampledTarget: null,
  notSampledWhy: 'no process known for it',
  notificationsWhy: 'no blocks mined (--notify not given)',
  phases: sampled.phases.map((p) => ({ ...p, notifications: null, resources: null })),
};

test('a database of version 12 upgrades, and an abuse run reads back as written, per server and phase', () => {
  const file = path.join(tmp, 'v12.sqlite');
  const old = new Database(file);
  migrate(old, 12);
  old.close();
  const results = ResultsStore.open(file);
  try {
    const { runId, serverIds } = new WalletStore(results).createRun(
      { kind: 'load', tool_version: '1', git_commit: null, config: {}, workload: 'electrum', wallets_path: 'w.jsonl', wallets_hash: 'h', passes: null, warmup: null },
      [
        { name: 'electrs', profile: 'electrs', url: 'tcp://127.0.0.1:1', software: null, protocol: null },
        { name: 'far', profile: 'electrs', url: 'tcp://192.0.2.1:1', software: null, protocol: null },
      ],
    );
    const store = new AbuseStore(results);
    store.add(runId, serverIds, [sampled, remote]);
    expect(store.read(runId)).toEqual([sampled, remote]);
    expect(store.read(runId + 1)).toEqual([]);
    expect(results.db.pragma('foreign_key_check')).toEqual([]);
    // A phase is one of three, once per server.
    expect(() => store.add(runId, serverIds, [sampled])).toThrow(/UNIQUE/);
  } finally {
    results.close();
  }
});
