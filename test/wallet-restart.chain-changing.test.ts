/**
 * Held wallets across a SIGKILL and restart of the lab's electrumx (labRestartServer): every held
 * wallet connects and syncs again, as a wallet does; the run stores and prints how many were lost,
 * how many were held again and how long it took, and the outage, which agrees with the restart's
 * own measure of the down time; and a block mined after the restart is heard by every re-held
 * wallet. It mines, so it runs after the tests that rely on the chain as generated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';
import { labRestartServer } from '../src/lab/lab';
import { reportOptions } from '../src/report/options';
import { readModels } from '../src/report/report';
import { walletLoadTable } from '../src/report/wallet-tables';
import { outageText, type Outage } from '../src/core/outages';

const ROOT = path.resolve(__dirname, '..');
const HELD = 20;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-wallet-restart-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Stored {
  server: string;
  held: number;
  reconnects: { lost: number; reheld: number; stillLost: number; reholdP50Ms: number; reholdMaxMs: number; failedAttempts: number; outages: Outage[] };
  notify: { blocks: number; headers: { expected: number; ok: number; missing: number }; scripthash: { expected: number; ok: number; missing: number } };
}

test(`${HELD} wallets held on electrumx across its SIGKILL and restart: all held again, recorded, and notified of a block mined after`, async () => {
  const env = labEnv();
  const { host, port } = env.electrum.electrumx;
  const db = path.join(tmp, 'held.sqlite');
  // Wallets arriving at 1/s keep the run going (held wallets are held for the rest of it); the
  // block is mined when they stop.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'load.ts'), '--server', `electrumx@${host}:${port}`, '--workload', 'electrum', '--wallets', env.walletsPath, '--wallet-max-txs', '10',
      '--hold', String(HELD), '--rate', '1', '--duration', '30s', '--notify', '--blocks', '1', '--pay-wallets', '3', '--db', db],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const held = new Promise<void>((resolve) =>
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (new RegExp(`${HELD} wallets held in`).test(stderr)) resolve();
    }),
  );
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  await Promise.race([held, exited]);
  const killAt = Date.now();
  const restart = await labRestartServer('electrumx', { killSignal: 'SIGKILL' });
  expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: expect.any(String) });

  const d = new Database(db, { readonly: true });
  const summary = JSON.parse((d.prepare('SELECT summary_json FROM wallet_runs').get() as { summary_json: string }).summary_json) as { servers: Stored[] };
  d.close();
  const [s] = summary.servers;
  expect(s.held).toBe(HELD);
  expect(s.reconnects).toMatchObject({ lost: HELD, reheld: HELD, stillLost: 0 });
  // Held again once the server was back: within the restart's down time, the last shared attempt's
  // wait (at most 1 s) and the re-syncs themselves (20 small wallets, 16 at a time, in two waves of
  // syncs of a second or more each: the electrum workload's send buffer, as Electrum's).
  expect(s.reconnects.reholdMaxMs).toBeLessThan(restart.downMs + 7500);
  expect(s.reconnects.reholdP50Ms).toBeGreaterThan(restart.downMs - restart.indexMs);
  expect(s.reconnects.outages).toHaveLength(1);
  const [o] = s.reconnects.outages;
  expect(o.startMs).toBeGreaterThanOrEqual(killAt);
  expect(o.endMs!).toBeGreaterThan(o.startMs);
  expect(o.endMs!).toBeGreaterThanOrEqual(killAt + restart.downMs - restart.indexMs);
  expect(o.endMs! - o.startMs).toBeGreaterThan(restart.downMs - 1000);
  expect(o.endMs! - o.startMs).toBeLessThan(restart.downMs + 2500);
  process.stdout.write(`electrumx restart: downMs ${restart.downMs}; held outage ${o.endMs! - o.startMs} ms; re-held p50 ${s.reconnects.reholdP50Ms} ms, max ${s.reconnects.reholdMaxMs} ms; ${s.reconnects.failedAttempts} failed attempts\n`);

  // The block mined after the restart reached every re-held wallet.
  expect(s.notify.blocks).toBe(1);
  expect(s.notify.headers).toMatchObject({ expected: HELD, ok: HELD, missing: 0 });
  expect(s.notify.scripthash.expected).toBeGreaterThanOrEqual(3);
  expect(s.notify.scripthash).toMatchObject({ missing: 0, ok: s.notify.scripthash.expected });

  expect(stdout).toContain(`electrumx: ${HELD} held connections lost, ${HELD} held again`);
  expect(stdout).toContain(`electrumx: ${outageText(o)}`);
  const [report] = readModels(reportOptions({ db, out: path.join(tmp, 'report') })).wallet!.runs;
  const table = walletLoadTable(report);
  expect(table.rows[0][table.head.indexOf('held connections lost')]).toContain(outageText(o));
}, 300_000);
