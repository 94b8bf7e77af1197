/**
 * A server in another version beside the lab's own (`lab up --with electrumx@1.20.0`), and the A/B
 * run that answers "did ElectrumX 2.0 regress against 1.20?": the second version really is 1.20.0
 * (it says so in server.version), indexes the same chain (every answer verified against the
 * dataset), is measured interleaved with 2.0.0 under `--baseline`, and the report shows a verdict
 * per method. The lab is given back as it was: the version is stopped at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';
import { labStatus, labUp } from '../src/lab/lab';
import { parseLabVersion, type LabVersion } from '../src/lab/versions';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const env = labEnv();
const without = Object.keys(env.without) as Array<'esplora' | 'fulcrum'>;
const OLD = parseLabVersion('electrumx@1.20.0') as LabVersion;
let tmp: string;

function cli(script: string, args: string[]) {
  return spawnSync(TSX, [path.join(ROOT, 'src', 'cli', script), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-versions-'));
});

afterAll(async () => {
  await labUp({ seed: env.seed, without, versions: [] });
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('lab up --with electrumx@1.20.0 adds that version on the running chain; bench --baseline judges 2.0.0 against it; the report shows the verdicts', async () => {
  const before = await labStatus();
  const status = await labUp({ seed: env.seed, without, versions: [OLD] });
  expect(status.up).toBe(true);
  // The lab's own servers were left running: the same processes, the same chain.
  for (const c of before.components.filter((c) => c.running)) expect(status.components.find((x) => x.name === c.name)!.pid).toBe(c.pid);
  expect(status.versions).toHaveLength(1);
  const v = status.versions[0];
  expect(v).toMatchObject({ name: 'electrumx-1.20.0', server: 'electrumx', version: '1.20.0', running: true, tip: env.tip });
  expect(v.port).not.toBe(env.electrum.electrumx.port);

  const db = path.join(tmp, 'ab.sqlite');
  const bench = cli('bench.ts', [
    '--server', 'electrumx-1.20.0', '--server', 'electrumx', '--baseline', 'electrumx-1.20.0',
    '--dataset', env.datasetPath, '--passes', '4', '--warmup', '1', '--verify', '--no-progress', '--db', db,
  ]);
  expect(bench.stderr).not.toMatch(/error/);
  expect(bench.status).toBe(0);
  expect(bench.stdout).toMatch(/A\/B verdicts against electrumx-1\.20\.0/);
  const verdictLines = bench.stdout.split('\n').filter((l) => l.startsWith('electrumx vs electrumx-1.20.0'));
  expect(verdictLines.map((l) => l.split(/\s+/)[3]).sort()).toEqual(['balance', 'history', 'utxos']);
  for (const l of verdictLines) expect(l).toMatch(/(~|faster|slower) [+−-]?\d+\.\d % \[[^\]]+\], paired bootstrap n=\d+ p=/);

  const sql = new Database(db, { readonly: true });
  try {
    const servers = sql.prepare('SELECT name, software, url FROM run_servers ORDER BY id').all() as Array<{ name: string; software: string; url: string }>;
    // What each server says it is: the older one really is another release, not the lab's own twice.
    expect(servers.map((s) => s.name)).toEqual(['electrumx-1.20.0', 'electrumx']);
    expect(servers[0].software).toMatch(/1\.20\.0/);
    expect(servers[1].software).toMatch(/2\.0\.0/);
    // Every answer of both was compared with the dataset, and agreed: the same chain, fully indexed.
    const checked = sql.prepare("SELECT server_id, count(*) AS n, sum(mismatch = 0) AS agreed FROM samples WHERE status = 'ok' GROUP BY server_id").all() as Array<{ n: number; agreed: number }>;
    expect(checked).toHaveLength(2);
    for (const c of checked) expect(c).toEqual({ server_id: expect.any(Number), n: 4 * 51 * 3, agreed: 4 * 51 * 3 });
    const config = JSON.parse((sql.prepare('SELECT config_json FROM runs').get() as { config_json: string }).config_json);
    expect(config.baseline).toBe('electrumx-1.20.0');
  } finally {
    sql.close();
  }

  const out = path.join(tmp, 'report');
  const report = cli('report.ts', ['--db', db, '--out', out]);
  expect(report.status).toBe(0);
  const md = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
  const section = md.slice(md.indexOf('## A/B verdicts against electrumx-1.20.0'));
  expect(section.length).toBeLessThan(md.length);
  const rows = section.split('\n').filter((l) => l.startsWith('| electrumx vs electrumx-1.20.0 |'));
  expect(rows).toHaveLength(3);
  for (const r of rows) expect(r).toMatch(/\| (~|faster|slower) [+−-]?\d+\.\d % \[[^\]]+\], paired bootstrap n=51 p=/);
  expect(fs.readFileSync(path.join(out, 'index.html'), 'utf8')).toContain('A/B verdicts against electrumx-1.20.0');

  // Taken away again, the rest untouched.
  const after = await labUp({ seed: env.seed, without, versions: [] });
  expect(after.up).toBe(true);
  expect(after.versions).toEqual([]);
  expect(after.components.find((c) => c.name === 'electrumx')!.pid).toBe(before.components.find((c) => c.name === 'electrumx')!.pid);
  const gone = cli('bench.ts', ['--server', 'electrumx-1.20.0', '--dataset', env.datasetPath, '--db', path.join(tmp, 'none.sqlite')]);
  expect(gone.status).toBe(2);
  expect(gone.stderr.trim()).toBe('electrum-bench: --server: no server electrumx-1.20.0 runs in the lab; start it with: npm run lab -- up --with electrumx@1.20.0');
  expect(fs.existsSync(path.join(tmp, 'none.sqlite'))).toBe(false);
}, 300_000);

test('lab up --with refuses what it cannot run, each problem named, exit 2, the lab untouched', async () => {
  const before = await labStatus();
  for (const [args, said] of [
    [['--with', 'electrs@0.11.0'], /--with: the lab runs other versions of electrumx only, not "electrs", in "electrs@0.11.0"/],
    [['--with', 'electrumx@2.0.0'], /--with: electrumx@2\.0\.0 is the lab's own ElectrumX/],
    [['--with', 'electrumx'], /--with: "electrumx" is not SERVER@VERSION/],
    [['--with', 'electrumx@1.20.0', '--with', 'electrumx@1.20.0'], /--with: electrumx-1\.20\.0 is asked for twice/],
  ] as Array<[string[], RegExp]>) {
    const r = cli('lab.ts', ['up', ...args]);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('[lab'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(said);
  }
  const after = await labStatus();
  expect(after.components.map((c) => c.pid)).toEqual(before.components.map((c) => c.pid));
  expect(after.versions).toEqual([]);
}, 120_000);
