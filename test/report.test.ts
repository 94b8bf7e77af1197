/**
 * The report from a database produced by a real lab run (the bench CLI against the lab's ElectrumX
 * and electrs), checked as a person would: files present, PNGs of real size and content, Markdown
 * tables, and the HTML opened in headless Chromium with its four charts on screen.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { labEnv } from './lab/env';
import { readDataset } from '../src/dataset/line';
import { CHARTS } from '../src/report/charts/definitions';
import { bucketRows } from '../src/report/charts/buckets';
import { compareBenchRuns } from '../src/verdicts/bench';
import { latestRunsOf } from '../src/verdicts/databases';
import { leastSquares } from '../src/report/fit';
import { loadModel } from '../src/report/load';
import { medianOf } from '../src/report/median';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
let tmp: string;
let db: string;
let out: string;

function cli(script: string, args: string[]) {
  return spawnSync(TSX, [path.join(ROOT, 'src', 'cli', script), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
}

/** Width, height and the distinct byte values of the decompressed image data. */
function inspectPng(file: string): { width: number; height: number; distinctBytes: number } {
  const buf = fs.readFileSync(file);
  expect(buf.subarray(1, 4).toString('latin1')).toBe('PNG');
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let off = 8; off < buf.length; ) {
    const len = buf.readUInt32BE(off);
    if (buf.toString('latin1', off + 4, off + 8) === 'IDAT') idat.push(buf.subarray(off + 8, off + 8 + len));
    off += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  return { width, height, distinctBytes: new Set(raw).size };
}

function chromium(): string {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'install-chromium.sh')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`chromium is not available: ${r.stderr}`);
  return r.stdout.trim();
}

function headless(browser: string, extra: string[], url: string) {
  const profile = fs.mkdtempSync(path.join(tmp, 'chromium-'));
  return spawnSync(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      ...extra,
      url,
    ],
    // The page embeds its font (about 1 MB): --dump-dom needs more than spawnSync's 1 MB default.
    { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
  );
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-report-'));
  db = path.join(tmp, 'lab.sqlite');
  out = path.join(tmp, 'report');
  const env = labEnv();
  const servers = (['electrumx', 'electrs'] as const).map((n) => `${n}@${env.electrum[n].host}:${env.electrum[n].port}`);
  const bench = cli('bench.ts', ['--no-progress', '--server', servers[0], '--server', servers[1], '--dataset', env.datasetPath, '--passes', '2', '--db', db]);
  // The bench may warn on stderr (its self-check, on a loaded machine): judged by its exit status.
  expect({ status: bench.status, stderr: bench.status === 0 ? '' : bench.stderr }).toEqual({ status: 0, stderr: '' });
  const report = cli('report.ts', ['--db', db, '--out', out, '--baseline', 'electrumx']);
  expect({ status: report.status, stderr: report.stderr }).toEqual({ status: 0, stderr: '' });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('writes every file: index.html, an SVG, PNG and spec per chart, summary.md, medians.csv', () => {
  const files = fs.readdirSync(out).sort();
  const expected = ['index.html', 'medians.csv', 'summary.md', ...CHARTS.flatMap((c) => [`${c.id}.png`, `${c.id}.svg`, `${c.id}.vl.json`])].sort();
  expect(files).toEqual(expected);
  const lines = readDataset(labEnv().datasetPath).lines.length;
  const csv = fs.readFileSync(path.join(out, 'medians.csv'), 'utf8').trim().split('\n');
  expect(csv).toHaveLength(1 + 2 * 3 * lines);
  const spec = JSON.parse(fs.readFileSync(path.join(out, 'history-vs-txcount.vl.json'), 'utf8'));
  const points = spec.data.values.filter((v: { layer: string }) => v.layer === 'point');
  expect(points).toHaveLength(2 * lines);
  expect(spec.vconcat).toHaveLength(2); // the plot and its error lane
  expect(new Set(points.map((p: { server: string }) => p.server))).toEqual(new Set(['electrumx', 'electrs']));
});

test('PNGs have the expected size and real content', () => {
  for (const c of CHARTS) {
    const png = inspectPng(path.join(out, `${c.id}.png`));
    expect(png.width).toBeGreaterThan(1000); // 2x zoom of a 640-wide chart plus axes and legend
    expect(png.height).toBeGreaterThan(600);
    expect(png.distinctBytes).toBeGreaterThan(64); // a blank or one-colour image has a handful
  }
});

test('summary.md holds the run, the server table with a baseline ratio and slope, and the chart links', () => {
  const md = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
  expect(md).toMatch(/\| server \| via \| method \| n \| ok \| p50 ms \| p90 ms \| p99 ms \| max ms \| errors \| p50 ÷ electrumx \| slope ms\/100 \|/);
  const rows = md.split('\n').filter((l) => /^\| (electrumx|electrs) \| Electrum \| (balance|history|utxos) \| \d+ \| \d+ \| [\d.]+ \|/.test(l));
  expect(rows).toHaveLength(6);
  for (const row of rows.filter((r) => r.startsWith('| electrumx'))) expect(row).toMatch(/\| 1\.00× \|/);
  for (const c of CHARTS) expect(md).toContain(`](${c.id}.png)`);
  expect(md).toMatch(/\| run \| started \| status \| dataset \|/);
  expect(md).toMatch(/\d+(\.\d+)? \/ \d+(\.\d+)? \/ \d+(\.\d+)? ms/); // the generator's own event-loop delay
  expect(md).toMatch(/ElectrumX 2\.0\.0/);
  expect(md).toMatch(/electrs\/0\.12\.0/);
});

test('headless Chromium shows the four charts: DOM and a non-blank screenshot', () => {
  const browser = chromium();
  const url = `file://${path.join(out, 'index.html')}`;
  const dom = headless(browser, ['--dump-dom'], url);
  expect(dom.status).toBe(0);
  const figures = dom.stdout.match(/<figure class="chart"[^>]*><svg/g) ?? [];
  expect(figures).toHaveLength(4);
  expect(dom.stdout).toMatch(/<table class="summary">/);
  const shot = path.join(tmp, 'screen.png');
  const r = headless(browser, [`--screenshot=${shot}`, '--window-size=1280,2400', '--hide-scrollbars'], url);
  expect(r.status).toBe(0);
  const png = inspectPng(shot);
  expect(png.width).toBe(1280);
  expect(png.distinctBytes).toBeGreaterThan(64);
  // The charts are drawn, not just present: the page is far from one colour (a blank page
  // compresses to a few kilobytes).
  expect(fs.statSync(shot).size).toBeGreaterThan(50_000);
});

test('--facet, --log-x, --log-y and --exclude-server reshape the charts, not the tables', () => {
  const zoom = path.join(tmp, 'zoom');
  const r = cli('report.ts', ['--db', db, '--out', zoom, '--facet', '--log-x', '--log-y', '--exclude-server', 'electrs']);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const spec = JSON.parse(fs.readFileSync(path.join(zoom, 'history-vs-txcount.vl.json'), 'utf8'));
  expect(spec.concat).toHaveLength(1); // one panel per server left
  expect(spec.concat[0].title.text).toBe('electrumx');
  const [plot] = spec.concat[0].vconcat;
  expect(plot.layer[2].encoding.x.scale.type).toBe('log');
  expect(plot.layer[2].encoding.y.scale.type).toBe('log');
  expect(spec.data.values.some((v: { server: string }) => v.server === 'electrs')).toBe(false);
  const md = fs.readFileSync(path.join(zoom, 'summary.md'), 'utf8');
  expect(md).toMatch(/\| electrs \| Electrum \| history \|/);
  expect(md).toMatch(/leave out electrs/);
});

test('errors are drawn as their own mark, not dropped', () => {
  const env = labEnv();
  const errDb = path.join(tmp, 'errors.sqlite');
  // A 4 KiB line cap makes every long history a protocol error: real errors from a real server.
  const s = `electrumx@${env.electrum.electrumx.host}:${env.electrum.electrumx.port}`;
  const bench = cli('bench.ts', ['--no-progress', '--server', s, '--dataset', env.datasetPath, '--passes', '2', '--max-line-bytes', '4096', '--methods', 'history', '--db', errDb]);
  expect(bench.status).toBe(0);
  const errOut = path.join(tmp, 'errors-report');
  const report = cli('report.ts', ['--db', errDb, '--out', errOut]);
  expect({ status: report.status, stderr: report.stderr }).toEqual({ status: 0, stderr: '' });
  const spec = JSON.parse(fs.readFileSync(path.join(errOut, 'history-vs-txcount.vl.json'), 'utf8'));
  const errors = spec.data.values.filter((v: { layer: string }) => v.layer === 'error');
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.every((e: { category: string }) => e.category === 'protocol')).toBe(true);
  const svg = fs.readFileSync(path.join(errOut, 'history-vs-txcount.svg'), 'utf8');
  // (Tested as booleans: a failing toMatch would print the whole SVG.)
  expect(/errors and timeouts \(red crosses\)[^<]* \d+ protocol/.test(svg)).toBe(true); // the lane's title
  expect(/<title>electrumx: \d+ × protocol on /.test(svg)).toBe(true); // each cross's hover title
  expect(fs.readFileSync(path.join(errOut, 'summary.md'), 'utf8')).toMatch(/protocol \d+/);
});

test('compare prints a delta table; user errors exit 2 with one line', () => {
  // A copy of the run's database is another database with the same run in it; the database itself twice is refused.
  const copy = path.join(tmp, 'copy.sqlite');
  fs.copyFileSync(db, copy);
  const itself = cli('report.ts', ['compare', '--db', db, '--db', db]);
  expect(itself.status).toBe(2);
  expect(itself.stderr.trim().split('\n')).toEqual([expect.stringMatching(/are one database/)]);
  const cmp = cli('report.ts', ['compare', '--db', db, '--db', copy, '--out', tmp]);
  expect(cmp.status).toBe(0);
  // The run behind it counted one pass (--passes 2, one of them warm-up): too few to tell a change
  // from the machine's drift, and the table says so instead of a verdict.
  expect(cmp.stdout).toMatch(/\| electrs \| history \| \d+ \| [\d.]+ \| [\d.]+ \| no verdict: 1 pass in a run; a verdict needs at least 2 in each, to tell a change from the machine's drift over time \|/);
  expect(fs.existsSync(path.join(tmp, 'compare.md'))).toBe(true);
  const notADir = path.join(tmp, 'a-file');
  fs.writeFileSync(notADir, '');
  for (const [args, msg] of [
    [['--db', path.join(tmp, 'nope.sqlite')], /no such results database/],
    [['--db', db, '--baseline', 'fulcrum'], /--baseline: no server named fulcrum/],
    [['--db', db, '--run', 'latest'], /--run: not a run id: latest/],
    [['--db', db, '--run', '99'], /no run 99/],
    [['--db', db, '--exclude-server', 'fulcrum'], /no server named fulcrum/],
  ] as Array<[string[], RegExp]>) {
    const r = cli('report.ts', [...args, '--out', path.join(tmp, 'x')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(msg);
  }
  expect(fs.existsSync(path.join(tmp, 'x'))).toBe(false); // nothing written on a user error
  const badOut = cli('report.ts', ['--db', db, '--out', path.join(notADir, 'report')]);
  expect(badOut.status).toBe(2);
  expect(badOut.stderr).toContain(path.join(notADir, 'report')); // the error names the path
});

test('the arithmetic behind the tables: fit, medians of milliseconds, buckets, compare', () => {
  const fit = leastSquares([0, 100, 200], [1, 3, 5])!;
  expect(fit.slope * 100).toBeCloseTo(2, 9); // ms per 100 transactions
  expect(fit.intercept).toBeCloseTo(1, 9);
  expect(leastSquares([5, 5], [1, 2])).toBeNull(); // no slope without two sizes
  expect(medianOf([1.25, 2.5])).toBe(1.25); // one definition everywhere: nearest rank, the lower middle value

  const model = loadModel(db);
  for (const b of bucketRows(model.points.filter((p) => p.method === 'history'), 'txCount')) {
    expect(b.lo).toBeLessThanOrEqual(b.median);
    expect(b.median).toBeLessThanOrEqual(b.hi);
  }
  // The same run against itself with every median doubled: +100 % for every server and method
  // (the medians' arithmetic alone: without passes, no verdict is drawn).
  const run = { ...latestRunsOf(db, { load: false, wallet: false }).bench!, passes: [] };
  const slower = { ...run, points: run.points.map((p) => ({ ...p, medianMs: p.medianMs === null ? null : p.medianMs * 2 })) };
  const cmp = compareBenchRuns(run, slower);
  expect(cmp.rows).toHaveLength(6);
  for (const r of cmp.rows) expect(r.changePct).toBeCloseTo(100, 6);
});

describe('verdicts between runs', () => {
  /** One bench run, into its own database, of the lab servers given as NAME=SERVER. */
  function benchOf(file: string, targets: Array<[string, 'electrumx' | 'electrs']>, passes: number): string {
    const env = labEnv();
    const servers = targets.flatMap(([name, target]) => ['--server', `${name}=${target}@${env.electrum[target].host}:${env.electrum[target].port}`]);
    const db = path.join(tmp, file);
    const r = cli('bench.ts', ['--no-progress', ...servers, '--dataset', env.datasetPath, '--passes', String(passes), '--db', db]);
    expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
    return db;
  }
  const verdicts = (stdout: string, server: string) =>
    [...stdout.matchAll(new RegExp(`^\\| ${server} \\| (\\w+) \\| \\d+ \\| [\\d.]+ \\| [\\d.]+ \\| (.+) \\|$`, 'gm'))].map((m) => ({ method: m[1], cell: m[2] }));

  test('A/A, interleaved: one server under two names in one run is no change for every method, and --fail-on-regression passes', () => {
    // Two separate runs drift apart by up to 20 % on this machine (docs/findings/2026-11-24-verdicts.md);
    // interleaved, the drift hits both names alike.
    const db = benchOf('aa.sqlite', [['a', 'electrumx'], ['b', 'electrumx']], 6);
    const r = cli('report.ts', ['compare', '--db', db, '--a', 'a', '--b', 'b', '--fail-on-regression', '5']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const v = verdicts(r.stdout, 'b vs a');
    expect(v.map((x) => x.method).sort()).toEqual(['balance', 'history', 'utxos']);
    for (const x of v) expect(x.cell).toMatch(/^~ [+−]\d+\.\d % \[[+−][\d.]+, [+−][\d.]+\], paired bootstrap n=\d+ p=[\d.]+$/);
  }, 300_000);

  test('one name, a slower server behind it in B: slower for every method, its interval above zero, and exit 99', () => {
    // electrs answers in ~5 ms on the lab (its replies wait for the next request's ACK), ElectrumX in ~0.5 ms.
    const fast = benchOf('fast.sqlite', [['x', 'electrumx']], 4);
    const slow = benchOf('slow.sqlite', [['x', 'electrs']], 4);
    const r = cli('report.ts', ['compare', '--db', fast, '--db', slow, '--fail-on-regression', '10']);
    expect(r.status).toBe(99);
    const v = verdicts(r.stdout, 'x');
    expect(v).toHaveLength(3);
    for (const x of v) {
      const m = /^slower \+([\d.]+) % \[\+([\d.]+), \+([\d.]+)\]/.exec(x.cell);
      expect(m).not.toBeNull();
      expect(Number(m![2])).toBeGreaterThan(0); // the interval excludes zero
    }
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^regression beyond 10 %: x balance slower \+/);
    // A threshold above the change: every result printed, exit 0; the other way round: faster.
    expect(cli('report.ts', ['compare', '--db', fast, '--db', slow, '--fail-on-regression', '100000']).status).toBe(0);
    const back = cli('report.ts', ['compare', '--db', slow, '--db', fast, '--fail-on-regression', '10']);
    expect(back.status).toBe(0);
    for (const x of verdicts(back.stdout, 'x')) expect(x.cell).toMatch(/^faster −/);
  }, 300_000);

  test('wallet bench runs in both: a verdict per server over all wallets and per wallet; another workload is said, not compared', () => {
    const env = labEnv();
    const walletsOf = (file: string, workload: string): string => {
      const db = path.join(tmp, file);
      const { host, port } = env.electrum.electrumx;
      const r = cli('bench.ts', ['--no-progress', '--server', `x=electrumx@${host}:${port}`, '--workload', workload, '--wallets', env.walletsPath, '--passes', '4', '--db', db]);
      expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
      return db;
    };
    const [a, b] = [walletsOf('wallets-a.sqlite', 'electrum'), walletsOf('wallets-b.sqlite', 'electrum')];
    const r = cli('report.ts', ['compare', '--db', a, '--db', b, '--fail-on-regression', '100000']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toContain('## Wallet syncs (electrum)');
    const rows = [...r.stdout.matchAll(/^\| x \| ([\w-]+) \| (\d*) \| (\d+) \/ (\d+) \| [\d.]+ \| [\d.]+ \| (.+) \|$/gm)];
    const wallets = fs.readFileSync(env.walletsPath, 'utf8').trim().split('\n').length;
    expect(rows).toHaveLength(1 + wallets);
    // 3 counted syncs of each wallet a side: the server's row over all wallets has a verdict, a single wallet's has none, saying why.
    expect(rows[0][1]).toBe('all');
    expect([rows[0][3], rows[0][4]]).toEqual([String(3 * wallets), String(3 * wallets)]);
    expect(rows[0][5]).toMatch(new RegExp(`^(~|slower|faster) [+−]\\d+\\.\\d % \\[[^\\]]+\\], paired bootstrap n=${wallets} p=`));
    for (const row of rows.slice(1)) expect(row[5]).toBe('no verdict: 3 samples on the smaller side; a verdict needs at least 10');
    const other = walletsOf('wallets-bdk.sqlite', 'bdk');
    const note = cli('report.ts', ['compare', '--db', a, '--db', other]);
    expect(note.status).toBe(0);
    expect(note.stdout).toContain('The latest wallet bench runs sync different workloads (A: electrum, B: bdk): their times are not compared.');
  }, 300_000);

  test('compare refuses what it cannot compare, each problem named, exit 2', () => {
    for (const [args, msg] of [
      [['--db', db, '--a', 'electrumx'], /--a and --b go together/],
      [['--db', db, '--db', db, '--a', 'electrumx', '--b', 'electrs'], /give one --db, got 2/],
      [['--db', db, '--a', 'electrumx', '--b', 'fulcrum'], /no server named fulcrum in the latest completed run/],
      [['--db', db, '--db', db, '--noise-floor', '-1'], /--noise-floor must be a percent/],
      [['--db', db, '--db', db, '--fail-on-regression', '-5'], /--fail-on-regression must be a percent >= 0, got -5/],
    ] as Array<[string[], RegExp]>) {
      const r = cli('report.ts', ['compare', ...args]);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
  });
});
