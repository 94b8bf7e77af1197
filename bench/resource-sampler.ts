/**
 * The resource sampler's own cost and accuracy. Cost: this process's CPU time (process.cpuUsage)
 * while it samples a tree of 6 idle child processes with datadirs for a while at 1 Hz and at 10 Hz,
 * as a share of one core, against the same wait with no sampler (the baseline, same run).
 * Accuracy: a child that burns a known amount of CPU and allocates a known amount of memory,
 * measured by the sampler and by the child itself (its process.cpuUsage and RSS).
 *
 *   npx tsx bench/resource-sampler.ts [--seconds 10]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, ChildProcess } from 'node:child_process';
import { ResourceSampler } from '../src/resources/sampler';
import { readProcessTree } from '../src/resources/proc';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1] || 10) || 10;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-sampler-bench-'));

function idleChild(i: number): ChildProcess {
  const dir = path.join(tmp, `d${i}`);
  fs.mkdirSync(dir);
  for (let f = 0; f < 200; f++) fs.writeFileSync(path.join(dir, `f${f}`), 'x'.repeat(4096));
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

async function cpuShare(everyMs: number | null): Promise<number> {
  const children = Array.from({ length: 6 }, (_, i) => idleChild(i));
  await new Promise((r) => setTimeout(r, 300));
  const sampler =
    everyMs === null
      ? null
      : new ResourceSampler(
          children.map((c, i) => ({ name: `c${i}`, pid: c.pid!, datadir: path.join(tmp, `d${i}`) })),
          () => undefined,
          { everyMs, dirEveryMs: 10_000 },
        );
  const before = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  sampler?.start();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  await sampler?.stop();
  const used = process.cpuUsage(before);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  for (const c of children) c.kill();
  for (let i = 0; i < 6; i++) fs.rmSync(path.join(tmp, `d${i}`), { recursive: true, force: true });
  return (used.user + used.system) / 1e6 / wall;
}

async function accuracy(): Promise<void> {
  const MiB = 1024 * 1024;
  const child = spawn(
    process.execPath,
    ['-e', `const b = Buffer.alloc(200 * ${MiB}, 1); const until = Date.now() + 1500; let x = 0; while (Date.now() < until) x += Math.sqrt(x + 1);
      const u = process.cpuUsage(); process.stdout.write(JSON.stringify({ cpu: (u.user + u.system) / 1e6, rss: process.memoryUsage().rss }) + '\\n'); setInterval(() => b[0]++, 1000);`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const own = await new Promise<{ cpu: number; rss: number }>((resolve) => child.stdout!.once('data', (d) => resolve(JSON.parse(d.toString()))));
  const seen = (await readProcessTree(child.pid!))!;
  child.kill();
  const cpu = seen.cpuUserS + seen.cpuSystemS;
  console.log(`accuracy: CPU ${cpu.toFixed(2)} s by the sampler vs ${own.cpu.toFixed(2)} s by the child itself (ratio ${(cpu / own.cpu).toFixed(3)}); ` +
    `RSS ${(seen.rssBytes / MiB).toFixed(1)} MiB vs ${(own.rss / MiB).toFixed(1)} MiB (ratio ${(seen.rssBytes / own.rss).toFixed(3)})`);
}

(async () => {
  const base = await cpuShare(null);
  const at1 = await cpuShare(1000);
  const at10 = await cpuShare(100);
  const pct = (v: number) => `${(v * 100).toFixed(2)} %`;
  console.log(`sampler cost over ${seconds} s, 6 processes with datadirs of 200 files: no sampler ${pct(base)} of one core (baseline); ` +
    `1 Hz ${pct(at1)} (+${pct(at1 - base)}); 10 Hz ${pct(at10)} (+${pct(at10 - base)})`);
  await accuracy();
  fs.rmSync(tmp, { recursive: true, force: true });
})();
