/**
 * Samples the servers under test while they work: each process tree from /proc at a fixed pace
 * (1 Hz by default), each data directory's size at start, end and every `dirEveryMs`, the host for
 * context, and each Prometheus endpoint given. Rows go to `onRows` as they come; nothing
 * accumulates here, so a sampler can run for as long as the run lasts.
 */
import fs from 'node:fs';
import { dirSizeBytes } from './dir-size';
import { readHost } from './host';
import { processTree, readProcessTree, type ProcReading } from './proc';
import { scrapePrometheus } from './prometheus';

export interface ResourceTarget {
  name: string;
  pid?: number;
  pidFile?: string; // read at every tick: a restarted server is followed
  datadir?: string;
  metricsUrl?: string;
  /** The measured servers this process serves (for per-request figures); default: the one of the same name. */
  servers?: string[];
}

import type { ResourceRow } from '../core/resource-row';
export type { ResourceRow };

export interface SamplerOptions {
  everyMs?: number;
  dirEveryMs?: number;
  /** How often the process tree (children) is looked up again; between, the known tree is read. */
  treeEveryMs?: number;
  metricsMatch?: RegExp;
  host?: boolean;
}

/**
 * Scraped by default: process figures (Esplora's process_*) and the sums and counts of every
 * histogram (electrs' per-method RPC and loop durations): a few dozen series, not thousands of buckets.
 */
export const DEFAULT_METRICS = /^process_|_(sum|count)(\{|$)/;

export class ResourceSampler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private lastDirAt = 0;
  private trees = new Map<string, { root: number; pids: number[]; at: number }>();
  private readonly o: Required<SamplerOptions>;

  constructor(
    private readonly targets: ResourceTarget[],
    private readonly onRows: (rows: ResourceRow[]) => void,
    opts: SamplerOptions = {},
  ) {
    this.o = { everyMs: 1_000, dirEveryMs: 10_000, treeEveryMs: 10_000, metricsMatch: DEFAULT_METRICS, host: true, ...opts };
  }

  /** Takes the first readings now (datadirs included), then one every `everyMs`. */
  start(): void {
    this.tick(true);
    this.timer = setInterval(() => this.tick(false), this.o.everyMs);
    this.timer.unref();
  }

  /** Stops, after a last reading with the datadirs' final sizes. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    this.tick(true);
    await this.ticking;
  }

  private tick(withDirs: boolean): void {
    // One tick at a time: a slow one (a big datadir) delays the next rather than piling up.
    this.ticking = this.ticking.then(async () => {
      const now = Date.now();
      const dirs = withDirs || now - this.lastDirAt >= this.o.dirEveryMs;
      if (dirs) this.lastDirAt = now;
      const rows = await Promise.all(this.targets.map((t) => this.read(t, now, dirs)));
      if (this.o.host) rows.push({ target: 'host', atMs: now, proc: null, datadirBytes: null, host: await readHost(), metrics: [] });
      this.onRows(rows);
    });
  }

  private async read(t: ResourceTarget, now: number, dirs: boolean): Promise<ResourceRow> {
    const pid = t.pid ?? (t.pidFile ? pidFrom(t.pidFile) : undefined);
    let proc: ProcReading | null = null;
    if (pid !== undefined) {
      let tree = this.trees.get(t.name);
      if (!tree || tree.root !== pid || now - tree.at >= this.o.treeEveryMs) {
        tree = { root: pid, pids: await processTree(pid), at: now };
        this.trees.set(t.name, tree);
      }
      proc = await readProcessTree(pid, tree.pids);
    }
    const [datadirBytes, metrics] = await Promise.all([
      dirs && t.datadir ? dirSizeBytes(t.datadir) : Promise.resolve(null),
      t.metricsUrl ? scrapePrometheus(t.metricsUrl, this.o.metricsMatch).catch(() => []) : Promise.resolve([]),
    ]);
    return { target: t.name, atMs: now, proc, datadirBytes, host: null, metrics };
  }
}

function pidFrom(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}
