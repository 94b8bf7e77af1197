/**
 * `load --interleave --baseline` from its argv to its exit code (run in this process:
 * test/support/cli), against two local responders in processes of their own (one answering at
 * once, one 3 ms late: the engine and the verdict are what is measured here, not a server): the
 * servers take turns, B's turns are judged against A's of the same round, the verdict is printed
 * after the summary, stored with the run and shown by `report` and `report compare --a/--b` alike,
 * and `--fail-on-regression` exits 99 with every result written.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startMisbehavingServerProcess } from '../../support/misbehaving-server';
import { reportOptions } from '../../../src/report/options';
import { writeReport } from '../../../src/report/report';
import { writeSyntheticDataset } from '../../support/synthetic-lines';
import { cli } from '../../support/cli';

let tmp: string;
let dataset: string;
const responders: Array<{ port: number; close(): void }> = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-load-interleave-'));
  dataset = path.join(tmp, 'd.jsonl');
  writeSyntheticDataset(dataset, 20, 'ab');
  responders.push(await startMisbehavingServerProcess({ nullResults: true }), await startMisbehavingServerProcess({ nullResults: true, delayMs: 3 }));
});
afterAll(() => {
  for (const r of responders) r.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The verdict cell of a text or Markdown table's row for `server` and `percentile`. */
function verdictCell(text: string, server: string, percentile: string): string | undefined {
  const row = text.split('\n').find((l) => new RegExp(`^\\|? *${server} +\\|? *${percentile} `).test(l));
  return row?.match(/((?:~|slower|faster) [+−][^|]*?p=\d\.\d{3})/)?.[1];
}

test('B 3 ms late in every turn: slower turn by turn, exit 99 with --fail-on-regression; the same verdict stored, reported and compared', async () => {
  const [fast, slow] = responders;
  const db = path.join(tmp, 'ab.sqlite');
  const r = await cli('load', [
    '--server', `a=generic@127.0.0.1:${fast.port}`, '--server', `b=generic@127.0.0.1:${slow.port}`, '--dataset', dataset,
    '--rate', '50', '--duration', '10s', '--interleave', '1s', '--baseline', 'a', '--fail-on-regression', '10', '--db', db, '--no-progress',
  ]);
  expect(r.code).toBe(99);
  expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^regression beyond 10 %: b vs a load p50 slower \+\d+\.\d % \[\+[\d.]+, \+[\d.]+\], sign test n=10 p=0\.\d{3}/);
  expect(r.stdout.split('\n')[0]).toBe('in turns of 1s, one server at a time (a b, then b a, …): each server loaded 10s in 10 turns');
  expect(r.stdout).toMatch(/outcomes \(a\): ok 500 = 500 scheduled/);
  expect(r.stdout).toMatch(/outcomes \(b\): ok 500 = 500 scheduled/);
  const printed = verdictCell(r.stdout.slice(r.stdout.indexOf('A/B verdicts against a')), 'b vs a', 'p50');
  expect(printed).toMatch(/^slower \+\d+\.\d % \[\+[\d.]+, \+[\d.]+\], sign test n=10 p=0\.\d{3}$/);

  const sql = new Database(db, { readonly: true });
  try {
    const config = JSON.parse((sql.prepare('SELECT config_json FROM runs').get() as { config_json: string }).config_json);
    expect(config).toMatchObject({ turnMs: 1000, baseline: 'a' });
    // Each server's seconds carry their round: ten rounds, each a turn of about one second.
    const turns = sql
      .prepare('SELECT s.name, i.step, sum(i.length_ms) AS ms, min(i.start_ms) AS at FROM load_intervals i JOIN run_servers s ON s.id = i.server_id GROUP BY s.name, i.step ORDER BY at')
      .all() as Array<{ name: string; step: number; ms: number; at: number }>;
    expect(turns.map((t) => `${t.name}${t.step}`).join(' ')).toBe('a0 b0 b1 a1 a2 b2 b3 a3 a4 b4 b5 a5 a6 b6 b7 a7 a8 b8 b9 a9');
    for (const t of turns) expect(t.ms).toBeGreaterThanOrEqual(1000);
    const outcomes = Object.fromEntries(
      (sql.prepare('SELECT name, outcome_json FROM run_servers').all() as Array<{ name: string; outcome_json: string }>).map((s) => [s.name, JSON.parse(s.outcome_json)]),
    );
    expect(outcomes.a.abVerdicts).toBeUndefined();
    expect(outcomes.b.abVerdicts.map((v: { percentile: string }) => v.percentile)).toEqual(['p50', 'p99']);
    expect(outcomes.b.abVerdicts[0]).toMatchObject({ server: 'b vs a', judged: 'b', pairs: 10, verdict: { test: 'sign test', n: 10, verdict: 'slower' } });
  } finally {
    sql.close();
  }

  // The report reads the same seconds into the same verdicts.
  const out = path.join(tmp, 'report');
  await writeReport(reportOptions({ db, out }));
  const md = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
  const section = md.slice(md.indexOf('### A/B verdicts against a, load run 1, turn by turn'));
  expect(section.length).toBeLessThan(md.length);
  expect(verdictCell(section, 'b vs a', 'p50')).toBe(printed);
  expect(fs.readFileSync(path.join(out, 'index.html'), 'utf8')).toContain('A/B verdicts against a, load run 1, turn by turn');
  // The charts over time draw both servers on the run's clock, each turn a line of its own.
  const latency = JSON.parse(fs.readFileSync(path.join(out, 'load-1-latency.vl.json'), 'utf8'));
  expect(latency.encoding.x.title).toBe('seconds since the run began (servers in turns)');
  expect(latency.encoding.detail).toEqual({ field: 'round', type: 'nominal' });
  const values = latency.data.values as Array<{ server: string; t: number; round: number }>;
  const firstOf = (server: string, round: number) => Math.min(...values.filter((v) => v.server === server && v.round === round).map((v) => v.t));
  expect(firstOf('a', 0)).toBeLessThan(firstOf('b', 0));
  expect(firstOf('b', 1)).toBeLessThan(firstOf('a', 1));

  // So does report compare on the one database: B against A as recorded, and A against B the other way round.
  const compared = await cli('report', ['compare', '--db', db, '--a', 'a', '--b', 'b', '--fail-on-regression', '10']);
  expect(compared.code).toBe(99);
  expect(compared.stdout).toMatch(/## Load, turn by turn/);
  expect(verdictCell(compared.stdout, 'b vs a', 'p50')).toBe(printed);
  const reversed = await cli('report', ['compare', '--db', db, '--a', 'b', '--b', 'a', '--fail-on-regression', '10']);
  expect(reversed.code).toBe(0);
  expect(verdictCell(reversed.stdout, 'a vs b', 'p50')).toMatch(/^faster −\d+\.\d % \[−[\d.]+, −[\d.]+\]/);
  const missing = await cli('report', ['compare', '--db', db, '--a', 'a', '--b', 'c']);
  expect(missing.code).toBe(2);
  expect(missing.stderr.trim()).toBe(`electrum-bench: --a/--b: no server named c in ${db}: its latest load run, interleaved, load run 1, has a, b`);
}, 120_000);

test('too few rounds for a verdict: warned before the run, and the table says why there is none; exit 0', async () => {
  const [fast, slow] = responders;
  const r = await cli('load', [
    '--server', `a=generic@127.0.0.1:${fast.port}`, '--server', `b=generic@127.0.0.1:${slow.port}`, '--dataset', dataset,
    '--rate', '20', '--duration', '2s', '--interleave', '1s', '--baseline', 'a', '--fail-on-regression', '10', '--db', path.join(tmp, 'few.sqlite'), '--no-progress',
  ]);
  expect(r.code).toBe(0);
  expect(r.stderr.trim()).toBe('electrum-bench: warning: --baseline: 2 rounds (--duration 2s in turns of 1s) give no verdict, which needs 10: lengthen --duration or shorten --interleave');
  const rows = r.stdout.split('\n').filter((l) => l.startsWith('b vs a'));
  expect(rows).toHaveLength(2);
  for (const row of rows) expect(row).toMatch(/ 2 .* no verdict: 2 rounds with a turn of both answered; a verdict needs at least 10$/);
}, 60_000);
