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
import { AbuseStore } from '../../../src/store/abuse';
import { remote, sampled } from '../../support/abuse-records';

let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-abuse-store-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

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
        { name: 'alpha', profile: 'electrs', url: 'tcp://127.0.0.1:1', software: null, protocol: null },
        { name: 'beta', profile: 'electrs', url: 'tcp://192.0.2.1:1', software: null, protocol: null },
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
