/**
 * SIGKILL at 20 random moments of a bench's writes (no handler runs, no last flush): after each,
 * the database passes `PRAGMA integrity_check`, and `--resume` continues; the last resume completes
 * the run to exactly the planned samples, none twice. Against our deliberately slow test server
 * (answers as for unused addresses, 2 ms late), so a run lasts long enough to be killed 20 times.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { seededRandom } from '../../../src/core/random';
import { restartMisbehavingServer, startMisbehavingServer, Misbehaving } from '../../support/misbehaving-server';
import { writeSyntheticDataset, EMPTY } from '../../support/synthetic-lines';
import { spawnCommand } from '../../support/command-process';

const LINES = 20;
const METHODS = 3;
const PASSES = 200;
const PLANNED = LINES * METHODS * PASSES;
const KILLS = 20;

let tmp: string;
let srv: Misbehaving;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-sigkill-'));
  writeSyntheticDataset(path.join(tmp, 'd.jsonl'), LINES, 'k', () => EMPTY);
  srv = await startMisbehavingServer({ emptyAnswers: true, delayMs: 2 });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The bench command as its own process (no launcher in between: the kill must hit the writer itself). */
function bench(args: string[]) {
  const child = spawnCommand('bench', ['--no-progress', ...args], { cwd: tmp, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, done, stderr: () => stderr };
}

function inspect(db: string): { integrity: string; samples: number; distinct: number; status: string | null } {
  const c = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const integrity = c.pragma('integrity_check', { simple: true }) as string;
    const { n } = c.prepare('SELECT count(*) AS n FROM samples').get() as { n: number };
    const { d } = c.prepare('SELECT count(*) AS d FROM (SELECT DISTINCT server_id, pass, address_idx, method FROM samples)').get() as { d: number };
    const run = c.prepare('SELECT status FROM runs WHERE id = 1').get() as { status: string } | undefined;
    return { integrity, samples: n, distinct: d, status: run?.status ?? null };
  } finally {
    c.close();
  }
}

/** 0 while the database or its tables do not exist yet. */
function samplesIn(db: string): number {
  try {
    return inspect(db).samples;
  } catch {
    return 0;
  }
}

test(`SIGKILL ${KILLS} times mid-run: integrity_check ok each time, and --resume completes to exactly ${PLANNED} samples`, async () => {
  const db = path.join(tmp, 'r.sqlite');
  const random = seededRandom('sigkill');
  const first = ['--server', `generic@127.0.0.1:${srv.port}`, '--dataset', path.join(tmp, 'd.jsonl'), '--passes', String(PASSES), '--warmup', '0', '--db', db];
  let kills = 0;
  let last = -1;
  while (kills < KILLS) {
    const run = bench(kills === 0 ? first : ['--resume', '1', '--db', db]);
    // Killed at a random moment once this process is writing (its run exists and grows).
    const base = samplesIn(db);
    const until = Date.now() + 20_000;
    while (samplesIn(db) <= base && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, Math.floor(random() * 400)));
    run.child.kill('SIGKILL');
    await run.done;
    kills++;
    const after = inspect(db);
    expect({ kill: kills, integrity: after.integrity }).toEqual({ kill: kills, integrity: 'ok' });
    expect(after.samples).toBe(after.distinct); // nothing measured twice
    expect(after.samples).toBeLessThan(PLANNED); // still something left for the next resume
    expect(after.samples).toBeGreaterThanOrEqual(last); // what was committed stays
    last = after.samples;
  }
  // The rest of the run (most of it) needs no kill moments: the same server on the same port,
  // answering at once, lets the last resume complete it in seconds instead of tens of them.
  ({ second: srv } = await restartMisbehavingServer(srv, { emptyAnswers: true }, 0));
  const final = bench(['--resume', '1', '--db', db]);
  expect(await final.done).toBe(0);
  const end = inspect(db);
  expect(end).toEqual({ integrity: 'ok', samples: PLANNED, distinct: PLANNED, status: 'completed' });
}, 240_000);
