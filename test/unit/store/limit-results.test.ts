/**
 * Limits runs in the store: migration 11 lets `runs` hold the kind 'limits' with every row of a
 * database written before it kept; findings come back as they were written, and the latest run on
 * a server hands its findings (with the run each was first found in) to the next.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ResultsStore } from '../../../src/store/results';
import { migrate } from '../../../src/store/schema';
import { LimitStore } from '../../../src/store/limit-results';
import type { LimitFinding } from '../../../src/core/server-limits';

let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-limit-results-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const run = { tool_version: '1', git_commit: null, config: { plan: { maxBatch: 10 }, operates: false }, dataset_path: null, dataset_hash: null };
const perIp: LimitFinding = { limit: 'connections-per-source', value: 12, triedUpTo: 13, past: { kind: 'reset' }, recoveryMs: 3, source: 'measured', note: 'from 127.0.0.2' };
const batch: LimitFinding = { limit: 'batch-size', value: null, triedUpTo: 2048, past: null, recoveryMs: null, source: 'measured' };

test('a database of version 10 upgrades with its runs kept, and then takes limits runs', () => {
  const file = path.join(tmp, 'v10.sqlite');
  const old = new Database(file);
  migrate(old, 10);
  old.prepare(`INSERT INTO runs (kind, started_at, status, tool_version, host_json, config_json) VALUES ('index', 't', 'completed', '1', '{}', '{}')`).run();
  expect(() => old.prepare(`INSERT INTO runs (kind, started_at, status, tool_version, host_json, config_json) VALUES ('limits', 't', 'running', '1', '{}', '{}')`).run()).toThrow(/CHECK/);
  old.close();
  const results = ResultsStore.open(file);
  try {
    expect(results.db.prepare('SELECT kind, status FROM runs').all()).toEqual([{ kind: 'index', status: 'completed' }]);
    const { runId } = new LimitStore(results).createRun(run, [{ name: 'fulcrum', profile: 'fulcrum', url: 'tcp://127.0.0.1:1' }]);
    expect(results.db.prepare('SELECT kind FROM runs WHERE id = ?').get(runId)).toEqual({ kind: 'limits' });
    expect(results.db.pragma('foreign_key_check')).toEqual([]);
  } finally {
    results.close();
  }
});

test('findings come back as written, per server; the next run on a server takes over the latest run\'s, naming where each was found', () => {
  const results = ResultsStore.open(path.join(tmp, 'r.sqlite'));
  try {
    const store = new LimitStore(results);
    const first = store.createRun(run, [
      { name: 'fulcrum', profile: 'fulcrum', url: 'tcp://127.0.0.1:1' },
      { name: 'electrs', profile: 'electrs', url: 'tcp://127.0.0.1:2' },
    ]);
    store.addFinding(first.runId, first.serverIds[0], perIp);
    store.addFinding(first.runId, first.serverIds[1], batch);
    store.finishRun(first.runId, 'interrupted');
    expect(store.findings(first.runId)).toEqual([
      { server: 'fulcrum', url: 'tcp://127.0.0.1:1', findings: [{ ...perIp, carriedFrom: null }] },
      { server: 'electrs', url: 'tcp://127.0.0.1:2', findings: [{ ...batch, carriedFrom: null }] },
    ]);
    expect(store.latestFindings('tcp://127.0.0.1:1')).toEqual([{ finding: perIp, foundIn: first.runId }]);
    expect(store.latestFindings('tcp://127.0.0.1:9')).toEqual([]);

    const second = store.createRun(run, [{ name: 'fulcrum', profile: 'fulcrum', url: 'tcp://127.0.0.1:1' }]);
    store.addFinding(second.runId, second.serverIds[0], perIp, first.runId);
    store.addFinding(second.runId, second.serverIds[0], batch);
    // Taken over twice, a finding still names the run that found it.
    expect(store.latestFindings('tcp://127.0.0.1:1')).toEqual([
      { finding: perIp, foundIn: first.runId },
      { finding: batch, foundIn: second.runId },
    ]);
    expect(store.run()?.id).toBe(second.runId);
    expect(store.run(first.runId)?.status).toBe('interrupted');
  } finally {
    results.close();
  }
});
