/**
 * The limits part of a report: a database holding only limits runs reports its latest one, a
 * table per server with each finding in words, in summary.md and index.html alike.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../../src/store/results';
import { LimitStore } from '../../../src/store/limit-results';
import { limitsTables, readLatestLimitsRun } from '../../../src/report/limits';
import { writeReport } from '../../../src/report/report';
import { reportOptions } from '../../../src/report/options';

let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-report-limits-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('the latest limits run, a table per server, in summary.md and index.html', async () => {
  const db = path.join(tmp, 'limits.sqlite');
  const results = ResultsStore.open(db);
  const store = new LimitStore(results);
  const run = { tool_version: '1', git_commit: null, dataset_path: null, dataset_hash: null };
  const old = store.createRun({ ...run, config: { operates: false } }, [{ name: 'fulcrum', profile: 'fulcrum', url: 'tcp://127.0.0.1:1' }]);
  store.finishRun(old.runId, 'completed');
  const latest = store.createRun({ ...run, config: { operates: false } }, [
    { name: 'fulcrum', profile: 'fulcrum', url: 'tcp://127.0.0.1:1' },
    { name: 'esplora', profile: 'esplora', url: 'tcp://127.0.0.1:2' },
  ]);
  store.addFinding(latest.runId, latest.serverIds[0], { limit: 'connections-per-source', value: 12, triedUpTo: 13, past: { kind: 'reset' }, recoveryMs: 3, source: 'measured', note: 'from 127.0.0.2' }, old.runId);
  store.addFinding(latest.runId, latest.serverIds[1], { limit: 'history-size', value: 475, triedUpTo: 1100, past: { kind: 'error', code: null, message: 'Too many history entries' }, recoveryMs: 1, source: 'measured' });
  store.finishRun(latest.runId, 'interrupted');
  results.close();

  const read = ResultsStore.open(db, { readonly: true });
  const report = readLatestLimitsRun(read)!;
  read.close();
  const tables = limitsTables(report);
  expect(tables.map((t) => t.title)).toEqual([
    `Limits of fulcrum — limits run ${latest.runId} (interrupted: what it found before it ended)`,
    `Limits of esplora — limits run ${latest.runId} (interrupted: what it found before it ended)`,
  ]);
  expect(tables.map((t) => t.rows)).toEqual([
    [['connections-per-source', '12 connections', 'connection closed, no answer', '3 ms', `from 127.0.0.2 (found in run ${old.runId})`]],
    [['history-size', '475 entries', 'error: Too many history entries', '1 ms', '']],
  ]);

  const out = path.join(tmp, 'report');
  await writeReport(reportOptions({ db, out }));
  const summary = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
  expect(summary).toMatch(/^# Electrum server limits report\n\n## Server limits\n/);
  expect(summary).toContain('| connections-per-source | 12 connections | connection closed, no answer | 3 ms |');
  expect(fs.readFileSync(path.join(out, 'index.html'), 'utf8')).toContain('Limits of esplora');
});
