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
    { encoding: 'utf8', timeout: 120_000 },
  );
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-report-'));
  db = path.join(tmp, 'lab.sqlite');
  out = path.join(tmp, 'report');
  const env = labEnv();
  const servers = (['electrumx', 'electrs'] as const).map((n) => `${n}@${env.electrum[n].host}:${env.electrum[n].port}`);
  const bench = cli('bench.ts', ['--no-progress', '--server', servers[0], '--server', servers[1], '--dataset', env.datasetPath, '--passes', '2', '--db', db]);
  expect({ status: bench.status, stderr: bench.stderr }).toEqual({ status: 0, stderr: '' });
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
  expect(md).toMatch(/\| server \| method \| n \| ok \| p50 ms \| p90 ms \| p99 ms \| max ms \| errors \| p50 ÷ electrumx \| slope ms\/100 \|/);
  const rows = md.split('\n').filter((l) => /^\| (electrumx|electrs) \| (balance|history|utxos) \|/.test(l));
  expect(rows).toHaveLength(6);
  for (const row of rows.filter((r) => r.startsWith('| electrumx'))) expect(row).toMatch(/\| 1\.00× \|/);
  for (const c of CHARTS) expect(md).toContain(`](${c.id}.png)`);
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
});

test('errors are drawn as their own mark, not dropped', () => {
  const env = labEnv();
  const errDb = path.join(tmp, 'errors.sqlite');
  // A 4 KiB line cap makes every long history a protocol error: real errors from a real server.
  const s = `electrumx@${env.electrum.electrumx.host}:${env.electrum.electrumx.port}`;
  const bench = cli('bench.ts', ['--no-progress', '--server', s, '--dataset', env.datasetPath, '--passes', '2', '--max-line-bytes', '4096', '--methods', 'history', '--db', errDb]);
  expect(bench.status).toBe(0);
  const errOut = path.join(tmp, 'errors-report');
  expect(cli('report.ts', ['--db', errDb, '--out', errOut]).status).toBe(0);
  const spec = JSON.parse(fs.readFileSync(path.join(errOut, 'history-vs-txcount.vl.json'), 'utf8'));
  const errors = spec.data.values.filter((v: { layer: string }) => v.layer === 'error');
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.every((e: { category: string }) => e.category === 'protocol')).toBe(true);
  expect(fs.readFileSync(path.join(errOut, 'history-vs-txcount.svg'), 'utf8')).toMatch(/red crosses/);
  expect(fs.readFileSync(path.join(errOut, 'summary.md'), 'utf8')).toMatch(/protocol \d+/);
});

test('compare prints a delta table; user errors exit 2 with one line', () => {
  const cmp = cli('report.ts', ['compare', '--db', db, '--db', db, '--out', tmp]);
  expect(cmp.status).toBe(0);
  expect(cmp.stdout).toMatch(/\| electrs \| history \| \d+ \| [\d.]+ \| [\d.]+ \| \+0\.0% \|/);
  expect(fs.existsSync(path.join(tmp, 'compare.md'))).toBe(true);
  for (const [args, msg] of [
    [['--db', path.join(tmp, 'nope.sqlite')], /no such results database/],
    [['--db', db, '--run', '99'], /no run 99/],
    [['--db', db, '--exclude-server', 'fulcrum'], /no server named fulcrum/],
  ] as Array<[string[], RegExp]>) {
    const r = cli('report.ts', [...args, '--out', path.join(tmp, 'x')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(msg);
  }
});
