/**
 * One reading of a process tree from Linux's /proc: CPU time (user, system), resident memory and
 * its peak, disk I/O (bytes and calls, /proc/PID/io), open file descriptors and threads, summed
 * over the process and every descendant (servers fork workers, ElectrumX runs under a shell).
 * Counters are cumulative; the sampler turns them into rates. A process that is gone reads as null.
 * Every read is asynchronous (libuv's thread pool), so sampling never holds the event loop that
 * times the calls being measured.
 */
import fs from 'node:fs/promises';

/** Kernel clock ticks per second (USER_HZ), which /proc/PID/stat's CPU times count in: 100 on Linux. */
const TICKS_PER_S = 100;

import type { ProcReading } from '../core/resource-row';
export type { ProcReading };

interface One {
  ppid: number;
  utime: number;
  stime: number;
  threads: number;
}

async function statOf(pid: number): Promise<One | null> {
  let text: string;
  try {
    text = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields start after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15, num_threads 20.
  return { ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), threads: Number(f[17]) };
}

function statusKb(key: string, text: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

async function ioOf(pid: number): Promise<{ readBytes: number; writeBytes: number; readCalls: number; writeCalls: number }> {
  try {
    const text = await fs.readFile(`/proc/${pid}/io`, 'utf8');
    const v = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { readBytes: v('read_bytes'), writeBytes: v('write_bytes'), readCalls: v('syscr'), writeCalls: v('syscw') };
  } catch {
    return { readBytes: 0, writeBytes: 0, readCalls: 0, writeCalls: 0 };
  }
}

async function fdCount(pid: number): Promise<number> {
  try {
    return (await fs.readdir(`/proc/${pid}/fd`)).length;
  } catch {
    return 0;
  }
}

/** `root` and every process descending from it, found by one scan of /proc's parent links. */
export async function processTree(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  const pids = (await fs.readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number);
  const stats = await Promise.all(pids.map(statOf));
  pids.forEach((pid, i) => {
    const s = stats[i];
    if (!s) return;
    const list = children.get(s.ppid) ?? [];
    list.push(pid);
    children.set(s.ppid, list);
  });
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** The tree of `root` as it is now; `tree` (from processTree) saves the scan of /proc when known. */
export async function readProcessTree(root: number, tree?: number[]): Promise<ProcReading | null> {
  if (!(await statOf(root))) return null;
  const r: ProcReading = { pids: [], cpuUserS: 0, cpuSystemS: 0, rssBytes: 0, peakRssBytes: 0, readBytes: 0, writeBytes: 0, readCalls: 0, writeCalls: 0, fds: 0, threads: 0 };
  const members = tree ?? (await processTree(root));
  const each = await Promise.all(
    members.map(async (pid) => {
      const [s, status, io, fds] = await Promise.all([statOf(pid), fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => null), ioOf(pid), fdCount(pid)]);
      return s && status !== null ? { pid, s, status, io, fds } : null; // null: ended meanwhile
    }),
  );
  for (const one of each) {
    if (!one) continue;
    const { pid, s, status, io } = one;
    r.pids.push(pid);
    r.cpuUserS += s.utime / TICKS_PER_S;
    r.cpuSystemS += s.stime / TICKS_PER_S;
    r.threads += s.threads;
    r.rssBytes += statusKb('VmRSS', status);
    r.peakRssBytes += statusKb('VmHWM', status);
    r.readBytes += io.readBytes;
    r.writeBytes += io.writeBytes;
    r.readCalls += io.readCalls;
    r.writeCalls += io.writeCalls;
    r.fds += one.fds;
  }
  return r;
}
