/**
 * --abuse beside a wallet load on the lab, through the CLI as a user runs it: the phases are
 * there, the ordinary workload's results are whole, and a server off loopback without
 * --i-operate-this-server is refused before any connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { labEnv } from './lab/env';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'bin', 'electrum-bench.js');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-abuse-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function load(args: string[]) {
  return spawnSync(process.execPath, [LAUNCHER, 'load', '--workload', 'electrum', '--wallets', labEnv().walletsPath, '--no-progress', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
}

test("idle connections beside held and arriving wallets on electrs: three phases, every arrival one outcome, the server answering after, its threads and open files up by the connections held", () => {
  const s = labEnv().electrum.electrs;
  const db = path.join(tmp, 'abuse.sqlite');
  const r = load(['--server', `electrs@${s.host}:${s.port}`, '--hold', '3', '--rate', '2', '--duration', '15s', '--abuse', 'idle-connections:connections=300', '--abuse-at', '4s', '--abuse-for', '6s', '--db', db, '--json']);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const [server] = JSON.parse(r.stdout).servers;
  const a = server.arrivals;
  // Every scheduled arrival ended as exactly one outcome, abuse or not.
  expect(a.synced + a.failed + a.notStarted).toBe(a.intended);
  expect(a.intended).toBe(30);
  const c = server.abuse.collateral;
  for (const phase of ['before', 'during', 'after']) expect(c[phase].units).toBeGreaterThan(0);
  // The phases split the arrivals that started; none is counted twice or lost.
  expect(c.before.units + c.during.units + c.after.units).toBe(a.intended - a.notStarted);
  expect(c.before.ok + c.during.ok + c.after.ok).toBe(a.synced);
  expect(server.abuse.tally.connections).toBe(300);
  expect(c.answeredAfter).toBe(true);
  expect(server.held).toBe(3);
  // electrs runs a thread per connection, and each holds a socket: 300 held for 6 s are seen at
  // every reading of the phase (one a second), so half of them is far inside what noise can take.
  const res = server.abuse.resources;
  expect(res.sampled).toBe(true);
  expect(res.phases.during.readings).toBeGreaterThanOrEqual(3);
  expect(res.phases.during.threadsMax - res.phases.before.threadsMax).toBeGreaterThanOrEqual(150);
  expect(res.phases.during.fdsMax - res.phases.before.fdsMax).toBeGreaterThanOrEqual(150);
  expect(server.abuse.stayedUp).toBe(true);
  // No --notify (it would mine, changing the lab's chain): said, not shown as zero.
  expect(server.abuse.notifications).toBeNull();
  expect(server.abuse.notificationsWhy).toMatch(/--notify not given/);
});

test('a server off loopback and the lab is refused before any connection, in one line, exit 2', () => {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): nothing answers there, so a connection attempt would hang
  // until --timeout (10 s); a refusal made before any connection comes within the 5 s a user error has.
  const started = Date.now();
  const r = load(['--server', 'electrs@192.0.2.1:50001', '--rate', '1', '--duration', '40s', '--abuse', 'subscription-flood', '--db', path.join(tmp, 'refused.sqlite')]);
  expect(r.status).toBe(2);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(r.stderr.trim().split('\n').filter((l) => l.trim()).slice(-1)[0]).toMatch(/--abuse subscription-flood pushes .*electrs \(192\.0\.2\.1\).*--i-operate-this-server/);
  expect(fs.existsSync(path.join(tmp, 'refused.sqlite'))).toBe(false);
});
