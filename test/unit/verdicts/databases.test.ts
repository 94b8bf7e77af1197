/**
 * What `report compare` judges (src/verdicts/databases.ts), on synthetic databases: two load runs'
 * seconds bootstrapped apart (src/verdicts/load.ts), a bench run only one side holds, and the
 * Markdown the report renders of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compareDatabases } from '../../../src/verdicts/databases';
import { regressions } from '../../../src/verdicts/comparison';
import { compareMarkdown, deltaTitle } from '../../../src/report/compare';
import { INTERVALS, writeBenchRun, writeLoadRun } from '../../support/synthetic-runs';

let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-verdicts-databases-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('report compare on load runs: a run against itself is no change; a run 1.5 times as slow is slower, and a regression', () => {
  const a = path.join(tmp, 'compare-a.sqlite');
  const slow = path.join(tmp, 'compare-slow.sqlite');
  writeLoadRun(a);
  writeLoadRun(slow, 1.5);
  const same = compareDatabases(a, a);
  expect(same.rows).toEqual([]); // no bench run in either
  expect(same.load!.map((r) => `${r.server} ${r.percentile} ${r.verdict.verdict}`)).toEqual(['alpha p50 no change', 'alpha p99 no change', 'beta p50 no change', 'beta p99 no change']);
  for (const r of same.load!) expect(r.intervals).toEqual([INTERVALS, INTERVALS]);
  const c = compareDatabases(a, slow);
  const p50 = c.load!.filter((r) => r.percentile === 'p50');
  for (const r of p50) {
    expect(r.verdict.verdict).toBe('slower');
    expect(r.verdict.ciPct![0]).toBeGreaterThan(0);
    expect(r.verdict.changePct!).toBeGreaterThan(30);
    expect(r.verdict.changePct!).toBeLessThan(70);
  }
  expect(regressions(c, 10).map((r) => r.what)).toEqual(expect.arrayContaining(['alpha load p50', 'beta load p50']));
  expect(regressions(same, 0)).toEqual([]);
  const md = compareMarkdown(c, deltaTitle(a, slow));
  expect(md).toContain('## Load');
  expect(md).toMatch(/^\| alpha \| p50 \| 60 \/ 60 \| [\d.]+ \| [\d.]+ \| slower \+\d+\.\d % \[\+/m);
  expect(md).not.toContain('No (server, method, address)'); // no bench section when neither has a bench run
  const benchOnly = path.join(tmp, 'compare-bench.sqlite');
  writeBenchRun(benchOnly);
  expect(() => compareDatabases(a, benchOnly)).toThrow(`compare: nothing of one kind in both: ${a} has a finished load run; ${benchOnly} has a completed bench run`);
});
