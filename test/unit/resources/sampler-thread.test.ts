/**
 * The resource sampler on its own thread (src/resources/sampler-thread.ts): its rows are this
 * process's real /proc readings, the first at start, a last at stop and none after; the main
 * thread takes them only in a moment it can spare.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SamplerThread } from '../../../src/resources/sampler-thread';
import type { ResourceRow } from '../../../src/resources/sampler';
import { giveSpareMoment, givingSpareMoments } from '../../../src/core/spare-time';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-sampler-thread-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('readings of a real process come from the thread: the first at start, every period, a last at stop, none after', async () => {
  fs.writeFileSync(path.join(tmp, 'a.bin'), Buffer.alloc(64 * 1024, 1));
  const rows: ResourceRow[] = [];
  const thread = new SamplerThread([{ name: 'self', pid: process.pid, datadir: tmp }], { everyMs: 100, host: false });
  await thread.ready;
  const startedMs = Date.now();
  thread.start((r) => rows.push(...r));
  await sleep(650);
  await thread.stop();
  const stoppedMs = Date.now();
  const taken = rows.length;
  await sleep(300);
  expect(rows).toHaveLength(taken);
  expect(taken).toBeGreaterThanOrEqual(4);
  expect(rows.every((r) => r.target === 'self' && r.proc !== null)).toBe(true);
  // This process as /proc has it, read from the other thread: the same pid, CPU that only grows.
  expect(rows[0].proc!.pids[0]).toBe(process.pid);
  const cpu = rows.map((r) => r.proc!.cpuUserS + r.proc!.cpuSystemS);
  expect(cpu).toEqual([...cpu].sort((a, b) => a - b));
  expect(rows[0].atMs).toBeGreaterThanOrEqual(startedMs - 5);
  expect(rows[0].atMs - startedMs).toBeLessThan(300);
  // The data directory at the start and at the stop, as the in-thread sampler reads it.
  expect(rows[0].datadirBytes).toBeGreaterThanOrEqual(64 * 1024);
  expect(rows[rows.length - 1].datadirBytes).toBeGreaterThanOrEqual(64 * 1024);
  expect(rows[rows.length - 1].atMs).toBeLessThanOrEqual(stoppedMs);
});

test('while a pacer gives moments, the rows are taken in them, none lost', async () => {
  const rows: ResourceRow[] = [];
  const thread = new SamplerThread([{ name: 'self', pid: process.pid }], { everyMs: 50, host: false });
  await thread.ready;
  givingSpareMoments(true);
  let stoppedAt = 0;
  try {
    thread.start((r) => rows.push(...r));
    const end = Date.now() + 400;
    while (Date.now() < end) {
      giveSpareMoment();
      await sleep(5);
    }
    expect(rows.length).toBeGreaterThanOrEqual(4);
  } finally {
    givingSpareMoments(false);
    await thread.stop();
    stoppedAt = rows.length;
  }
  // One reading per period and the stop's: none was dropped on the way.
  const times = rows.map((r) => r.atMs);
  expect(new Set(times).size).toBe(stoppedAt);
  expect(times).toEqual([...times].sort((a, b) => a - b));
});
