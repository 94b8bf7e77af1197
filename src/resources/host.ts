/**
 * The whole machine, for context beside a server's own figures: CPU time by kind (/proc/stat),
 * memory (/proc/meminfo) and disk traffic of whole disks (/proc/diskstats, partitions and virtual
 * devices left out so nothing is counted twice).
 */
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';

const TICKS_PER_S = 100;
const SECTOR = 512; // /proc/diskstats counts 512-byte sectors whatever the device's own size

import type { HostReading } from '../core/resource-row';
export type { HostReading };

export async function readHost(): Promise<HostReading> {
  const [stat, mem, disks] = await Promise.all(['/proc/stat', '/proc/meminfo', '/proc/diskstats'].map((f) => fs.readFile(f, 'utf8')));
  const cpu = stat.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu;
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(mem)?.[1] ?? 0) * 1024;
  let read = 0;
  let write = 0;
  for (const line of disks.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !isWholeDisk(f[2])) continue;
    read += Number(f[5]) * SECTOR;
    write += Number(f[9]) * SECTOR;
  }
  return {
    cpuBusyS: (user + nice + system + irq + softirq + (steal || 0)) / TICKS_PER_S,
    cpuIdleS: (idle + iowait) / TICKS_PER_S,
    cpuIowaitS: iowait / TICKS_PER_S,
    memTotalBytes: kb('MemTotal'),
    memAvailableBytes: kb('MemAvailable'),
    diskReadBytes: read,
    diskWriteBytes: write,
  };
}

/** A whole block device: it has a /sys/block entry (partitions do not), and is no loop or RAM disk. */
function isWholeDisk(name: string): boolean {
  return !/^(loop|ram|zram)/.test(name) && existsSync(`/sys/block/${name}`);
}
