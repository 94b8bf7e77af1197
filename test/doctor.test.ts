/**
 * The pre-flight doctor on the lab's real servers: a load planned over Fulcrum's connections per
 * source address (20 from 127.0.0.2, where 127.0.0.1 is exempt) is named before any traffic, and
 * Fulcrum then refuses what the doctor said it would; --strict-limits refuses the same plan with
 * exit 2 before any connection (Fulcrum's log sees none from 127.0.0.2) and writes nothing. The
 * lab's own settings outrank a profile's defaults: its Esplora serves every lab history
 * (--electrum-txs-limit 100000, not 500), and a Fulcrum restarted with max_clients_per_ip 4 is
 * planned against 4.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describeBuilt, labEnv } from './lab/env';
import { labRestartServer } from '../src/lab/lab';
import { labConfig, labPaths } from '../src/lab/config';
import { readDataset } from '../src/dataset/line';

const ROOT = path.resolve(__dirname, '..');
const env = labEnv();
let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-doctor-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function load(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'load.ts'), '--dataset', env.datasetPath, '--no-progress', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stderr: r.stderr, lines: r.stderr.split('\n').filter(Boolean) };
}

/** Fulcrum's log lines that name `address` (each connection it accepts, each it refuses), from `since` on. */
function fulcrumSaw(address: string, since: number): string[] {
  const log = fs.readFileSync(path.join(labPaths(labConfig()).logDir, 'fulcrum.log'), 'utf8');
  return log.slice(since).split('\n').filter((l) => l.includes(` ${address}`));
}
const fulcrumLogSize = () => fs.statSync(path.join(labPaths(labConfig()).logDir, 'fulcrum.log')).size;

describeBuilt('fulcrum', "a load over Fulcrum's connections per source address", () => {
  const fulcrum = () => `fulcrum@${env.electrum.fulcrum!.host}:${env.electrum.fulcrum!.port}`;
  const over = () => ['--server', fulcrum(), '--rate', '5', '--duration', '2s', '--connections', '20', '--source-addresses', '127.0.0.2'];

  test('--strict-limits: refused in one line naming the limit, exit 2, before any connection, nothing written', () => {
    const db = path.join(tmp, 'strict.sqlite');
    const since = fulcrumLogSize();
    const r = load(...over(), '--strict-limits', '--db', db);
    expect({ code: r.code, lines: r.lines }).toEqual({
      code: 2,
      lines: [expect.stringMatching(/^electrum-bench: --strict-limits: fulcrum: 20 connections from 127\.0\.0\.2 .*12 connections per source address \(max_clients_per_ip, Fulcrum's default\).*--source-addresses 127\.0\.0\.2-127\.0\.0\.3/)],
    });
    expect(fulcrumSaw('127.0.0.2', since)).toEqual([]);
    expect(fs.existsSync(db)).toBe(false);
  });

  test('by default: the warning comes first, then Fulcrum refuses connections from 127.0.0.2 past 12, as it said', () => {
    const since = fulcrumLogSize();
    const r = load(...over(), '--db', path.join(tmp, 'warned.sqlite'));
    expect(r.lines[0]).toMatch(/^electrum-bench: warning: fulcrum: 20 connections from 127\.0\.0\.2 .*max_clients_per_ip.*\(--strict-limits refuses such a run\)$/);
    const saw = fulcrumSaw('127.0.0.2', since);
    // After the set fails the run asks for one connection more (a cap takes it, a server that went
    // down would not: src/engine/iterations/request-units.ts), so the accepts up to the last refusal count.
    const refused = (l: string) => /Connection limit \(12\) exceeded for 127\.0\.0\.2/.test(l);
    expect(saw.filter(refused).length).toBeGreaterThanOrEqual(1);
    const lastRefusal = saw.length - 1 - [...saw].reverse().findIndex(refused);
    expect(saw.slice(0, lastRefusal).filter((l) => /New TCP Client/.test(l))).toHaveLength(12);
  });

  test('spread over two source addresses the same plan is under the limit: no warning, and --strict-limits lets it run', () => {
    const r = load('--server', fulcrum(), '--rate', '5', '--duration', '1s', '--connections', '20', '--source-addresses', '127.0.0.2-127.0.0.3', '--strict-limits', '--db', path.join(tmp, 'spread.sqlite'));
    expect({ code: r.code, warnings: r.lines.filter((l) => /warning|strict-limits/.test(l)) }).toEqual({ code: 0, warnings: [] });
  });
});

describeBuilt('fulcrum', "the lab's settings outrank a profile's defaults: Fulcrum restarted with max_clients_per_ip 4", () => {
  afterAll(() => labRestartServer('fulcrum'), 60_000);

  test('6 connections from 127.0.0.2 are planned against 4, named as the lab sets it; after the lab settings are back, against 12', async () => {
    await labRestartServer('fulcrum', { settings: { max_clients_per_ip: '4' } });
    const server = `fulcrum@${env.electrum.fulcrum!.host}:${env.electrum.fulcrum!.port}`;
    const six = ['--server', server, '--rate', '5', '--duration', '1s', '--connections', '6', '--source-addresses', '127.0.0.2', '--strict-limits'];
    const r = load(...six, '--db', path.join(tmp, 'four.sqlite'));
    expect({ code: r.code, lines: r.lines }).toEqual({ code: 2, lines: [expect.stringMatching(/6 connections from 127\.0\.0\.2 .*4 connections per source address \(max_clients_per_ip, the lab's fulcrum\.conf\)/)] });
    await labRestartServer('fulcrum');
    expect(load(...six, '--db', path.join(tmp, 'twelve.sqlite')).code).toBe(0);
  });
});

describeBuilt('esplora', "the lab's Esplora serves every lab history: no warning where the profile's default 500 would refuse", () => {
  test('a history load of the lab dataset, whose largest addresses have more than 500 transactions, runs under --strict-limits', () => {
    expect(Math.max(...readDataset(env.datasetPath).lines.map((l) => l.txCount))).toBeGreaterThan(500);
    const e = env.electrum.esplora!;
    const r = load('--server', `esplora@${e.host}:${e.port}`, '--mix', 'history=1', '--rate', '5', '--duration', '1s', '--strict-limits', '--db', path.join(tmp, 'esplora.sqlite'));
    expect({ code: r.code, warnings: r.lines.filter((l) => /warning|strict-limits/.test(l)) }).toEqual({ code: 0, warnings: [] });
  });
});
