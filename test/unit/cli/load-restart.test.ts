/**
 * The server killed and restarted mid-load (our test server closed, every socket with it, and
 * started again on the same port): the load reconnects and goes on, the outage shows as errors in
 * the seconds it lasted and as one outage from the first request the closed server failed to the
 * first answer after its return, and no request is lost: every one sent has an outcome on record.
 * The load command runs in this process (test/support/cli) while the test restarts the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { restartMisbehavingServer, startMisbehavingServer, Misbehaving } from '../../support/misbehaving-server';
import { reportOptions } from '../../../src/report/options';
import { readModels } from '../../../src/report/report';
import { loadRunTable } from '../../../src/report/load-tables';
import { writeSyntheticDataset, EMPTY } from '../../support/synthetic-lines';
import { cli } from '../../support/cli';

let tmp: string;
const servers: Misbehaving[] = [];
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-load-restart-'));
  writeSyntheticDataset(path.join(tmp, 'd.jsonl'), 20, 'r', () => EMPTY);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Intervals stored so far; 0 while the database is not there yet. */
function intervals(db: string): number {
  try {
    const c = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (c.prepare('SELECT count(*) AS n FROM load_intervals').get() as { n: number }).n;
    } finally {
      c.close();
    }
  } catch {
    return 0;
  }
}

test('a load across a server restart: reconnects, the outage is errors in its seconds, every request sent has an outcome', async () => {
  const first = await startMisbehavingServer({ emptyAnswers: true });
  servers.push(first);
  const db = path.join(tmp, 'l.sqlite');
  const load = cli('load', ['--no-progress', '--server', `generic@127.0.0.1:${first.port}`, '--dataset', path.join(tmp, 'd.jsonl'), '--rate', '40', '--duration', '7s', '--connections', '2', '--timeout', '2', '--db', db], { cwd: tmp });
  // Down for 1.5 s once the load has run for a second or two.
  const until = Date.now() + 30_000;
  while (intervals(db) < 2 && Date.now() < until) await wait(50);
  const { second, closedAt, backAt } = await restartMisbehavingServer(first, { emptyAnswers: true }, 1500);
  servers.push(second);
  const { code, stdout, stderr } = await load;
  expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) });

  const c = new Database(db, { readonly: true });
  const run = c.prepare("SELECT status FROM runs WHERE kind = 'load'").get() as { status: string };
  const perSecond = c
    .prepare(
      `SELECT i.idx AS idx, i.sent AS sent, coalesce(sum(CASE WHEN k.outcome = 'ok' THEN k.count END), 0) AS ok, coalesce(sum(CASE WHEN k.outcome <> 'ok' THEN k.count END), 0) AS failed
       FROM load_intervals i LEFT JOIN load_cells k ON k.run_id = i.run_id AND k.server_id = i.server_id AND k.idx = i.idx GROUP BY i.idx ORDER BY i.idx`,
    )
    .all() as Array<{ idx: number; sent: number; ok: number; failed: number }>;
  const totals = c.prepare('SELECT (SELECT sum(sent) FROM load_intervals) AS sent, (SELECT sum(count) FROM load_cells) AS outcomes').get() as { sent: number; outcomes: number };
  const stored = JSON.parse((c.prepare('SELECT outcome_json FROM run_servers').get() as { outcome_json: string }).outcome_json);
  const integrity = c.pragma('integrity_check', { simple: true });
  c.close();

  expect(run.status).toBe('completed');
  expect(integrity).toBe('ok');
  expect(perSecond[0].ok).toBeGreaterThan(0); // up before
  expect(perSecond.some((s) => s.failed > 0)).toBe(true); // the outage is on record
  expect(perSecond.at(-1)!.ok).toBeGreaterThan(0); // and up again after: reconnected
  expect(second.connections).toBeGreaterThanOrEqual(1);
  expect(totals.outcomes).toBe(totals.sent); // nothing lost

  // One outage: from a failure after the close to the first answer after the return, which the
  // reconnect loop's backoff (at most 1 s between attempts) reaches within about a second.
  expect(stored.outages).toHaveLength(1);
  const [o] = stored.outages;
  expect(o.startMs).toBeGreaterThanOrEqual(closedAt);
  expect(o.startMs).toBeLessThan(closedAt + 1500);
  expect(o.endMs).toBeGreaterThanOrEqual(backAt);
  expect(o.endMs).toBeLessThan(backAt + 2500);
  expect(o.endS - o.startS).toBeCloseTo((o.endMs - o.startMs) / 1000, 2);
  const text = `generic: outage ${o.startS.toFixed(1)} s → ${o.endS.toFixed(1)} s (${(o.endS - o.startS).toFixed(1)} s)`;
  expect(stdout).toContain(text);
  const [report] = readModels(reportOptions({ db, out: path.join(tmp, 'report') })).load;
  const table = loadRunTable(report);
  expect(table.rows[0][table.head.indexOf('outages')]).toBe(text.slice('generic: '.length));
});
