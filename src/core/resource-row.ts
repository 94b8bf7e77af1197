/**
 * One reading of a sampled target (src/resources/ takes it, src/store/ keeps it): a process tree's
 * /proc counters, the host's, and scraped metrics.
 */

export interface ResourceRow {
  target: string; // a server name, or 'host'
  atMs: number;
  proc: ProcReading | null; // null: no process (not running, or only a datadir/metrics target)
  datadirBytes: number | null;
  host: HostReading | null; // on the 'host' row only
  metrics: MetricSample[];
}

export interface ProcReading {
  pids: number[]; // the tree read, root first
  cpuUserS: number;
  cpuSystemS: number;
  rssBytes: number;
  peakRssBytes: number; // sum of each process's own peak (VmHWM): an upper bound of the tree's peak
  readBytes: number; // from storage (not the page cache)
  writeBytes: number;
  readCalls: number;
  writeCalls: number;
  fds: number;
  threads: number;
}

export interface HostReading {
  cpuBusyS: number; // user + nice + system + irq + softirq + steal
  cpuIdleS: number; // idle + iowait
  cpuIowaitS: number;
  memTotalBytes: number;
  memAvailableBytes: number;
  diskReadBytes: number;
  diskWriteBytes: number;
}

export interface MetricSample {
  name: string; // with its labels, as written: process_cpu_seconds_total, or x{a="b"}
  value: number;
}
