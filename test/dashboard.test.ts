/**
 * `load --dashboard` watched in headless Chromium (Debian's, driven by playwright-core) while a real
 * load runs against the lab's ElectrumX: the counts rise while it lasts, and the page's final
 * figures, which it adds up from the intervals, are the summary's. The export shows the same.
 * A bench's page and a wallet load's are held to the database's samples and the run's summary.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'bin', 'electrum-bench.js');
let tmp: string;
let browser: Browser;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-dashboard-'));
  const installed = spawnSync('bash', [path.join(ROOT, 'scripts', 'install-chromium.sh')], { encoding: 'utf8' });
  if (installed.status !== 0) throw new Error(`chromium is not available: ${installed.stderr}`);
  // Without the background-networking flags Chromium keeps trying hosts this machine cannot reach.
  browser = await chromium.launch({
    executablePath: installed.stdout.trim(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
afterAll(async () => {
  await browser?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const number = (text: string | null): number => Number((text ?? '').replace(/,/g, '').replace(/ ms$/, ''));
const field = async (page: Page, name: string): Promise<string> => (await page.textContent(`section[data-server="electrumx"] [data-field="${name}"]`)) ?? '';

interface Summary {
  status: string;
  servers: Array<{ sent: number; answered: number; ok: number; dropped: number; latencyMs: { p50: number; p90: number; p99: number; max: number } }>;
}

/** What the page must show of the summary, to the digits it prints (3 decimals below 10 ms). */
async function expectFigures(page: Page, summary: Summary): Promise<void> {
  const s = summary.servers[0];
  expect(number(await field(page, 'sent'))).toBe(s.sent);
  expect(number(await field(page, 'answered'))).toBe(s.answered);
  expect(number(await field(page, 'ok'))).toBe(s.ok);
  expect(number(await field(page, 'dropped'))).toBe(s.dropped);
  for (const p of ['p50', 'p90', 'p99'] as const) {
    const shown = number(await field(page, p));
    expect({ p, shown, summary: s.latencyMs[p], close: Math.abs(shown - s.latencyMs[p]) <= (s.latencyMs[p] < 10 ? 0.0005 : 0.05) }).toEqual(expect.objectContaining({ close: true }));
  }
  // The summary's max is the slowest reply as measured; the page's, HDR's (3 significant digits).
  expect(Math.abs(number(await field(page, 'max')) / s.latencyMs.max - 1)).toBeLessThan(0.002);
  expect(await page.textContent('[data-field=status]')).toBe(summary.status);
  expect(await page.textContent('[data-threshold]')).toBe('passing');
}

/** The launcher started with a live dashboard: the page's URL once it listens, its exit, what it printed. */
function watched(args: string[]) {
  const child = spawn(process.execPath, [LAUNCHER, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const listening = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /dashboard: (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    void exited.then(() => reject(new Error(`${args[0]} exited before its dashboard listened: ${stderr}`)));
  });
  return { child, listening, exited, stdout: () => out };
}

test('the dashboard shows the counts rising while the run lasts, then the summary\'s figures; the export shows them too', async () => {
  const { host, port } = labEnv().electrum.electrumx;
  const exported = path.join(tmp, 'run.html');
  const { child, listening, exited, stdout } = watched([
    'load', '--server', `electrumx@${host}:${port}`, '--dataset', labEnv().datasetPath, '--rate', '50', '--duration', '15s', '--no-progress', '--json',
    '--db', path.join(tmp, 'dash.sqlite'), '--dashboard', '0', '--dashboard-export', exported, '--threshold', 'latency:p(99)<5000',
  ]);
  try {
    const url = await listening;
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('section[data-server="electrumx"] [data-field="sent"]', { timeout: 20_000 });
    const first = number(await field(page, 'sent'));
    await page.waitForTimeout(3_000);
    const later = number(await field(page, 'sent'));
    expect(await page.textContent('[data-field=status]')).toBe('running');
    expect(first).toBeGreaterThan(0);
    expect(later).toBeGreaterThanOrEqual(first + 100); // 3 s at 50/s, give or take a second's edge

    await page.waitForFunction("document.querySelector('[data-field=status]')?.textContent !== 'running'", undefined, { timeout: 40_000 });
    expect(await exited).toBe(0);
    const summary = JSON.parse(stdout()) as Summary;
    expect(summary.status).toBe('completed');
    await expectFigures(page, summary);

    const saved = await browser.newPage();
    await saved.goto(`file://${exported}`);
    await expectFigures(saved, summary);
    // The export needs nothing from outside the file.
    expect(fs.readFileSync(exported, 'utf8')).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
  } finally {
    child.kill('SIGKILL');
  }
}, 120_000);

/** Runs the launcher to its end; the page of `--dashboard-export` and what it printed. */
function runToExport(args: string[], exported: string): { summary: unknown; code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [LAUNCHER, ...args, '--json', '--dashboard-export', exported], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { summary: r.status === 0 ? JSON.parse(r.stdout) : null, code: r.status, stderr: r.stderr };
}

const unitCell = async (page: Page, server: string, unit: string, col: 'ok' | 'errors') => number(await page.textContent(`section[data-server="${server}"] tr[data-unit="${unit}"] [data-col="${col}"]`));

test('a bench\'s page shows its plan done and every sample, warm-up included, as the database holds them', async () => {
  const { host, port } = labEnv().electrum.electrumx;
  const db = path.join(tmp, 'bench.sqlite');
  const exported = path.join(tmp, 'bench.html');
  const r = runToExport(['bench', '--server', `electrumx@${host}:${port}`, '--dataset', labEnv().datasetPath, '--passes', '3', '--warmup', '1', '--limit', '25', '--no-progress', '--db', db], exported);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const summary = r.summary as { samples: number; status: string };
  const stored = new Database(db, { readonly: true });
  const rows = stored.prepare("SELECT method, SUM(status = 'ok') AS ok, SUM(status != 'ok') AS errors FROM samples GROUP BY method").all() as Array<{ method: string; ok: number; errors: number }>;
  stored.close();
  expect(rows.length).toBe(3);
  const page = await browser.newPage();
  await page.goto(`file://${exported}`);
  expect(await page.textContent('[data-field=status]')).toBe('completed');
  expect(await page.textContent('section[data-server="electrumx"] [data-field="done"]')).toBe(`${summary.samples} of ${summary.samples}`);
  expect(await page.textContent('section[data-server="electrumx"] [data-field="pass"]')).toBe('3 of 3');
  for (const { method, ok, errors } of rows) {
    expect({ method, ok: await unitCell(page, 'electrumx', method, 'ok'), errors: await unitCell(page, 'electrumx', method, 'errors') }).toEqual({ method, ok, errors });
  }
  expect(rows.reduce((n, x) => n + x.ok + x.errors, 0)).toBe(summary.samples);
}, 120_000);

test('a wallet load\'s page shows the wallets held while they are held, and syncs that add up to the summary\'s', async () => {
  const { host, port } = labEnv().electrum.fulcrum!;
  const exported = path.join(tmp, 'wallets.html');
  const { child, listening, exited, stdout } = watched([
    'load', '--workload', 'electrum', '--wallets', labEnv().walletsPath, '--server', `fulcrum@${host}:${port}`, '--hold', '20', '--rate', '2', '--duration', '6s',
    '--json', '--db', path.join(tmp, 'wallets.sqlite'), '--dashboard', '0', '--dashboard-export', exported,
  ]);
  try {
    const url = await listening;
    const page = await browser.newPage();
    await page.goto(url);
    // Seen while the run goes on: all 20 held, and the page still following.
    await page.waitForFunction("document.querySelector('section[data-server=\"fulcrum\"] [data-field=\"held\"]')?.textContent === '20 of 20'", undefined, { timeout: 30_000 });
    expect(await page.textContent('[data-field=status]')).toBe('running');
    await page.waitForFunction("document.querySelector('[data-field=status]')?.textContent !== 'running'", undefined, { timeout: 60_000 });
    expect(await exited).toBe(0);
    const summary = JSON.parse(stdout()) as { status: string; servers: Array<{ held: number; holdFailed: number; arrivals: { synced: number; failed: number } }> };
    const s = summary.servers[0];
    for (const shown of [page, await browser.newPage()]) {
      if (shown !== page) await shown.goto(`file://${exported}`);
      expect(await shown.textContent('[data-field=status]')).toBe(summary.status);
      expect(await shown.textContent('section[data-server="fulcrum"] [data-field="held"]')).toBe(`${s.held} of 20`);
      expect(await unitCell(shown, 'fulcrum', 'hold-sync', 'ok')).toBe(s.held);
      expect(await unitCell(shown, 'fulcrum', 'sync', 'ok')).toBe(s.arrivals.synced);
      expect(await unitCell(shown, 'fulcrum', 'sync', 'errors')).toBe(s.arrivals.failed);
    }
  } finally {
    child.kill('SIGKILL');
  }
}, 120_000);
