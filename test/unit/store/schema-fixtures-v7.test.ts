/**
 * Databases the previous version wrote (test/fixtures/db-v7/: one per run kind, made against a real
 * lab; README.md there says how) report as that version reported them: the same files and the same
 * summary.md, figures and run numbers included, whether read as they are (through an upgraded
 * copy) or after being upgraded in place; and `report compare` gives the same delta. Every
 * database is read from a copy: opening one may create files beside it.
 */
import { replyHoldLine, replyHoldOf } from '../../../src/servers/reply-hold';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reportOptions } from '../../../src/report/options';
import { writeReport } from '../../../src/report/report';
import { ResultsStore } from '../../../src/store/results';
import { SCHEMA_VERSION } from '../../../src/store/schema';
import { cli } from '../../support/cli';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'db-v7');
const EXPECTED = path.join(FIXTURES, 'expected');
/** Where the previous version's reports were made; the expected files name their databases there. */
const MADE_IN = '/tmp/fxrep/';
const KINDS = ['bench', 'load', 'wallet-bench', 'wallet-load', 'index'] as const;

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-fixtures-v7-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of a fixture in `dir`, under the fixture's own name (the expected reports print it). */
function copyOf(kind: string, dir: string, name = `${kind}.sqlite`): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.copyFileSync(path.join(FIXTURES, `${kind}.sqlite`), file);
  return file;
}

/** The fixtures' ElectrumX 2.0.0 over TCP, as the report now names its hold. */
const ELECTRUMX_HOLD = replyHoldLine(replyHoldOf({ name: 'electrumx', software: 'ElectrumX 2.0.0', url: 'tcp://127.0.0.1:29503' })!);

/**
 * Prose the report has changed on purpose since version 7, each with its reason; figures, tables
 * and run numbers are compared as version 7 printed them.
 */
const CHANGED_PROSE: Array<{ was: string; now: string; why: string }> = [
  {
    was: 'Achieved rate: replies per second, errors included; dropped requests were never sent because every connection\'s pipeline was full.',
    now: 'Achieved rate: answers per second, error replies included, timeouts and closed connections not (they are no answer); a server that stopped answering is said so first. Dropped requests were never sent because every connection\'s pipeline was full.',
    why: 'a reported rate is answered units per second (issue #17); the runs of these fixtures had no timeout, so their figures are unchanged',
  },
  // ElectrumX's reply hold named (issue #38), from what these runs stored: the software and URL.
  {
    was: '## Servers\n\n| server | run |',
    now: `## Servers\n\n${ELECTRUMX_HOLD}\n\n| server | run |`,
    why: 'a bench of ElectrumX >= 1.18 over TCP says its latencies may contain the hold',
  },
  {
    was: 'regtest-lab.jsonl.\n\n| server | model |',
    now: `regtest-lab.jsonl.\n\n${ELECTRUMX_HOLD}\n\n| server | model |`,
    why: 'a load of ElectrumX >= 1.18 over TCP says its latencies may contain the hold',
  },
  {
    was: "against the wallet's size.\n\n| server | software |",
    now: `against the wallet's size.\n\n${ELECTRUMX_HOLD}\n\n| server | software |`,
    why: 'a wallet bench of ElectrumX >= 1.18 over TCP says its sync times may contain the hold (these runs stored no look at the wire: the version decides)',
  },
  {
    was: 'over the ok arrivals.\n\n| server | held |',
    now: `over the ok arrivals.\n\n${ELECTRUMX_HOLD}\n\n| server | held |`,
    why: 'a wallet load of ElectrumX >= 1.18 over TCP says its sync times may contain the hold',
  },
];
const expected = (name: string, dir: string) =>
  CHANGED_PROSE.reduce((text, c) => text.split(c.was).join(c.now), fs.readFileSync(path.join(EXPECTED, name), 'utf8').split(MADE_IN).join(`${dir}/`));
const expectedFiles = (kind: string) => fs.readFileSync(path.join(EXPECTED, `${kind}.files.txt`), 'utf8').split('\n').filter(Boolean).sort();

describe.each(KINDS)('%s.sqlite of version 7', (kind) => {
  test('reports as version 7 reported it, read as it is; the file read is left as it was', async () => {
    const dir = path.join(tmp, `read-${kind}`);
    const db = copyOf(kind, dir);
    const before = fs.readFileSync(db);
    const out = path.join(dir, 'report');
    const files = await writeReport(reportOptions({ db, out }));
    expect([...files].sort()).toEqual(expectedFiles(kind));
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).toBe(expected(`${kind}.summary.md`, dir));
    expect(fs.readFileSync(db).equals(before)).toBe(true);
  });

  test('upgraded in place to the current schema, it reports the same', async () => {
    const dir = path.join(tmp, `upgraded-${kind}`);
    const db = copyOf(kind, dir);
    const store = ResultsStore.open(db);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.db.pragma('foreign_key_check')).toEqual([]);
    store.close();
    const out = path.join(dir, 'report');
    expect([...(await writeReport(reportOptions({ db, out })))].sort()).toEqual(expectedFiles(kind));
    expect(fs.readFileSync(path.join(out, 'summary.md'), 'utf8')).toBe(expected(`${kind}.summary.md`, dir));
  });
});

test('the numbers version 7 printed still select its runs: --load-run 1, --wallet-run 1, --run 1', async () => {
  const load = copyOf('load', path.join(tmp, 'named'));
  await writeReport(reportOptions({ db: load, loadRun: ['1'], out: path.join(tmp, 'named', 'load-1') }));
  const md = fs.readFileSync(path.join(tmp, 'named', 'load-1', 'summary.md'), 'utf8');
  // Load run 1 of load.run1.txt: 40/s for 3 s, printed then as p99 217.7 ms.
  expect(fs.readFileSync(path.join(FIXTURES, 'load.run1.txt'), 'utf8')).toMatch(/^load run 1:[^]*electrumx +completed +3\.0s +120 +40\.3 +16\.0 +100\.3 +217\.7 /);
  expect(md).toContain('### Load run 1\n');
  expect(md).toContain('| electrumx | open, 40/s | 3.0 s | 40/s | 40 | 15.951 | 217.727 | 241.535 | 0 | 0 | yes: ');

  const wallet = copyOf('wallet-load', path.join(tmp, 'named'));
  const files = await writeReport(reportOptions({ db: wallet, walletRun: ['1'], out: path.join(tmp, 'named', 'wallet-1') }));
  expect([...files].sort()).toEqual(expectedFiles('wallet-load'));

  const bench = copyOf('bench', path.join(tmp, 'named'));
  await writeReport(reportOptions({ db: bench, run: ['1'], out: path.join(tmp, 'named', 'bench-1') }));
  expect(fs.readFileSync(path.join(tmp, 'named', 'bench-1', 'summary.md'), 'utf8')).toContain(`From \`${bench}\`, run 1.`);
});

test('`report` and `report compare` from the command line: the report as before, and the same delta figures', async () => {
  const dir = path.join(tmp, 'cli');
  const a = copyOf('bench', dir);
  const b = copyOf('bench', dir, 'b2.sqlite');
  const out = path.join(dir, 'report-bench');
  const report = await cli('report', ['--db', a, '--out', out]);
  expect({ code: report.code, stderr: report.stderr }).toEqual({ code: 0, stderr: '' });
  expect(report.stdout).toBe(expected('bench.report-stdout.txt', dir));
  const compare = await cli('report', ['compare', '--db', a, '--db', b]);
  expect({ code: compare.code, stderr: compare.stderr }).toEqual({ code: 0, stderr: '' });
  // The same figures as the previous version printed (server, method, addresses, A and B p50); the
  // change column became a verdict, which for a database against itself is no change.
  const figures = (md: string) => [...md.matchAll(/^\| (\w+) \| (\w+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| (.+) \|$/gm)].map((m) => m.slice(1, 6).join(' '));
  const before = expected('bench.compare.md', dir);
  expect(figures(compare.stdout)).toEqual(figures(before));
  expect(figures(compare.stdout)).toHaveLength(3);
  for (const m of compare.stdout.matchAll(/^\| electrumx \| \w+ \| .+ \| (.+) \|$/gm)) expect(m[1]).toMatch(/^~ \+0\.0 % \[/);
}, 120_000);
