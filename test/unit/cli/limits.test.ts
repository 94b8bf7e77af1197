/**
 * `limits` as users run it, through the launcher, against a deliberately limited server: a stop
 * while a probe waits ends it within 2 s with what was found kept (the run interrupted), and a
 * rerun on the same database takes those findings over and probes only the rest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { startLimitedServer, type Limited } from '../../support/limited-server';
import { countIn } from '../../support/count-in';
import { until } from '../../support/until';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const LAUNCHER = path.join(ROOT, 'bin', 'electrum-bench.js');
let tmp: string;
let server: Limited;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-limits-cli-'));
  server = await startLimitedServer({ perSource: 3, hangBatches: true });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function limits(db: string, ...extra: string[]): ChildProcess {
  const args = [LAUNCHER, 'limits', '--server', `generic@127.0.0.1:${server.port}`, '--source-addresses', '127.0.0.2-127.0.0.3', '--timeout', '30', '--max-subscriptions', '100', '--db', db, ...extra];
  return spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

function ended(child: ChildProcess): Promise<{ code: number | null; at: number; stdout: string }> {
  let stdout = '';
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now(), stdout })));
}

function findings(db: string): Array<{ run_id: number; limit_name: string; value: number | null; carried_from: number | null; status: string }> {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare('SELECT f.run_id, f.limit_name, f.value, f.carried_from, r.status FROM limit_findings f JOIN runs r ON r.id = f.run_id ORDER BY f.rowid').all() as never;
  } finally {
    d.close();
  }
}

test('SIGINT while a batch waits on a silent server: exit 130 within 2 s, what was found kept; a rerun takes it over', async () => {
  const db = path.join(tmp, 'l.sqlite');
  const child = limits(db);
  const done = ended(child);
  // The batch probe waits 30 s on a server that answers no array: three findings before it.
  await until('three findings', () => fs.existsSync(db) && countIn(db, 'SELECT count(*) AS n FROM limit_findings') >= 3, 30_000);
  const t0 = Date.now();
  child.kill('SIGINT');
  const { code, at, stdout } = await done;
  expect(code).toBe(130);
  expect(at - t0).toBeLessThan(2500);
  expect(spawnSync('pgrep', ['-f', db]).status).not.toBe(0);
  expect(stdout).toContain('interrupted');
  const first = findings(db);
  expect(first.map((f) => [f.limit_name, f.value, f.status])).toEqual([
    ['connections-per-source', 3, 'interrupted'],
    ['connections-total', null, 'interrupted'],
    ['subscriptions-per-connection', null, 'interrupted'],
  ]);

  const again = await ended(limits(db, '--i-operate-this-server', '--limits', 'connections-per-source,connections-total,subscriptions-per-connection,request-line-bytes', '--max-request-bytes', '1024'));
  expect(again.code).toBe(0);
  const second = findings(db).filter((f) => f.run_id !== first[0].run_id);
  expect(second.map((f) => [f.limit_name, f.carried_from, f.status])).toEqual([
    ['connections-per-source', first[0].run_id, 'completed'],
    ['connections-total', first[0].run_id, 'completed'],
    ['subscriptions-per-connection', first[0].run_id, 'completed'],
    ['request-line-bytes', null, 'completed'],
  ]);
  expect(again.stdout).toContain(`(found in run ${first[0].run_id})`);
  // The user's word that they operate the server is kept with the run that took it.
  const d = new Database(db, { readonly: true });
  const operates = (d.prepare('SELECT config_json FROM runs ORDER BY id').all() as Array<{ config_json: string }>).map((r) => JSON.parse(r.config_json).operates);
  d.close();
  expect(operates).toEqual([false, true]);
}, 90_000);
