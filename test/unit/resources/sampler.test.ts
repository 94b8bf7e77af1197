/**
 * The resource sampler against a child process of known behaviour: it allocates 120 MiB and starts
 * a grandchild that allocates 40 MiB, burns about a second of CPU, writes 8 MiB in 64 synced writes
 * and reads them back 4 times in 64 KiB reads. The sampler must see each within stated tolerances,
 * summed over the process tree, and the data directory's size.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { ResourceSampler, type ResourceRow } from '../../../src/resources/sampler';
import { readProcessTree } from '../../../src/resources/proc';
import { dirSizeBytes } from '../../../src/resources/dir-size';
import { parsePrometheusText } from '../../../src/resources/prometheus';
import { migrate } from '../../../src/store/schema';
import { resourceSummaries, resourceWriter } from '../../../src/store/resources';
import { createRun } from '../../../src/store/run-record';

const MiB = 1024 * 1024;

const CHILD = `
const fs = require('fs'), path = require('path'), { spawn } = require('child_process');
const dir = process.argv[1];
const a = Buffer.alloc(120 * ${MiB}, 1);
const g = spawn(process.execPath, ['-e', 'const b = Buffer.alloc(40 * ${MiB}, 2); process.stdout.write("g"); setInterval(() => b[0]++, 1000)'], { stdio: ['ignore', 'pipe', 'inherit'] });
g.stdout.once('data', () => {
  // One second of its own CPU time, not of the wall clock: on a busy machine a second of wall time may hold far less.
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
  const until = cpu() + 1; let x = 0; while (cpu() < until) for (let i = 0; i < 1e5; i++) x += Math.sqrt(x + 1);
  const file = path.join(dir, 'data.bin'); const fd = fs.openSync(file, 'w'); const chunk = Buffer.alloc(128 * 1024, 7);
  for (let i = 0; i < 64; i++) fs.writeSync(fd, chunk);
  fs.fsyncSync(fd); fs.closeSync(fd);
  const rfd = fs.openSync(file, 'r'); const buf = Buffer.alloc(64 * 1024);
  for (let r = 0; r < 4; r++) for (let off = 0; off < 8 * ${MiB}; off += buf.length) fs.readSync(rfd, buf, 0, buf.length, off);
  fs.closeSync(rfd);
  process.stdout.write('ready ' + g.pid + '\\n');
  setInterval(() => a[0]++, 1000);
});
process.on('SIGTERM', () => { g.kill(); process.exit(0); });
`;

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-sampler-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a process tree of known behaviour: memory, CPU, disk writes and reads, calls, tree, datadir', async () => {
  const child = spawn(process.execPath, ['-e', CHILD, tmp], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.once('exit', () => reject(new Error('child exited early')));
    });
    const rows: ResourceRow[] = [];
    const sampler = new ResourceSampler([{ name: 'child', pid: child.pid!, datadir: tmp }], (r) => rows.push(...r), { everyMs: 100 });
    sampler.start();
    await new Promise((r) => setTimeout(r, 350));
    await sampler.stop();
    const mine = rows.filter((r) => r.target === 'child');
    expect(mine.length).toBeGreaterThanOrEqual(3);
    const last = mine[mine.length - 1];
    const p = last.proc!;
    expect(p.pids.length).toBe(2); // the child and its grandchild
    expect(p.rssBytes).toBeGreaterThanOrEqual(160 * MiB);
    expect(p.rssBytes).toBeLessThan(400 * MiB);
    expect(p.peakRssBytes).toBeGreaterThanOrEqual(p.rssBytes);
    expect(p.cpuUserS + p.cpuSystemS).toBeGreaterThanOrEqual(0.9);
    expect(p.cpuUserS + p.cpuSystemS).toBeLessThan(5);
    expect(p.writeBytes).toBeGreaterThanOrEqual(8 * MiB); // synced, so on storage
    expect(p.writeCalls).toBeGreaterThanOrEqual(64);
    expect(p.readCalls).toBeGreaterThanOrEqual(4 * 128);
    expect(p.threads).toBeGreaterThanOrEqual(2);
    expect(p.fds).toBeGreaterThanOrEqual(6);
    expect(last.datadirBytes).toBeGreaterThanOrEqual(8 * MiB);
    expect(last.datadirBytes).toBeLessThan(9 * MiB);
    expect(rows.some((r) => r.target === 'host' && r.host!.memTotalBytes > 0 && r.host!.cpuBusyS > 0)).toBe(true);

    // Stored and summarised: counters as last − first, the tree's peak, the datadir at both ends.
    const db = new Database(':memory:');
    migrate(db);
    // Resource rows belong to a run (a foreign key since the one run record).
    const { runId } = createRun(db, { kind: 'bench', tool_version: 'test', git_commit: null, config_json: '{}' }, []);
    resourceWriter(db, { runId })(rows);
    const [s] = resourceSummaries(db, { runId });
    expect(s.target).toBe('child');
    expect(s.peakRssBytes).toBeGreaterThanOrEqual(160 * MiB);
    expect(s.cpuSeconds).toBeGreaterThanOrEqual(0);
    expect(s.cpuSeconds).toBeLessThan(0.5); // the child idles while sampled
    expect(s.datadirEndBytes).toBe(last.datadirBytes);
    db.close();
  } finally {
    child.kill('SIGTERM');
  }
  // Gone (reaped, not a zombie that still has its /proc entry): no reading, not zeros.
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
  expect(await readProcessTree(child.pid!)).toBeNull();
});

test('a data directory is measured as du measures it, nested folders and many files included', async () => {
  for (let d = 0; d < 5; d++) {
    const sub = path.join(tmp, `d${d}`, 'deeper');
    fs.mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 40; f++) fs.writeFileSync(path.join(sub, `f${f}`), Buffer.alloc(1000 + f * 300, 1));
  }
  const du = Number(execFileSync('du', ['-s', '-B1', tmp], { encoding: 'utf8' }).split(/\s/)[0]);
  expect(await dirSizeBytes(tmp)).toBe(du);
  expect(await dirSizeBytes(path.join(tmp, 'missing'))).toBeNull();
});

test('Prometheus text: names with labels, comments and non-finite values skipped, filtered by name', () => {
  const text = [
    '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.',
    '# TYPE process_cpu_seconds_total counter',
    'process_cpu_seconds_total 12.5',
    'process_resident_memory_bytes 1.048576e+07',
    'electrs_index_height{type="tip"} 469',
    'process_weird NaN',
  ].join('\n');
  expect(parsePrometheusText(text, /^process_/)).toEqual([
    { name: 'process_cpu_seconds_total', value: 12.5 },
    { name: 'process_resident_memory_bytes', value: 10485760 },
  ]);
  expect(parsePrometheusText(text, /index_height/)).toEqual([{ name: 'electrs_index_height{type="tip"}', value: 469 }]);
});
