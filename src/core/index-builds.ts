/**
 * Index builds as index-bench measures them and the report reads them back: what one build cost,
 * its phases, and the median build of each (server, setting value).
 */
import { median } from './quantiles';

/** A stretch of a build named by the server's log (e.g. Fulcrum's "Processed height"). */
export interface Phase {
  name: string;
  startMs: number;
  endMs: number;
}

/** A build's figures as stored: its time to the tip and what it used on the way. */
export interface BuildFigures {
  indexMs: number;
  cpuS: number | null;
  peakRssBytes: number | null;
  readBytes: number | null;
  writeBytes: number | null;
  datadirBytes: number | null;
}

/** What one build cost (or the median build of several). */
export interface IndexCost extends BuildFigures {
  server: string;
  settings: Record<string, string>;
}

export interface IndexBuild extends IndexCost {
  repeat: number;
  phases: Phase[];
}

/** The median build of each (server, setting value): time, CPU, peak RSS, disk, size, and phases' shares. */
export interface IndexSummary extends IndexCost {
  builds: number;
  phases: Array<{ name: string; ms: number; share: number }>;
}

export function summarizeBuilds(builds: IndexBuild[]): IndexSummary[] {
  const groups = new Map<string, IndexBuild[]>();
  for (const b of builds) {
    const k = `${b.server}\u0000${JSON.stringify(b.settings)}`;
    groups.set(k, [...(groups.get(k) ?? []), b]);
  }
  return [...groups.values()].map((g) => {
    const med = (f: (b: IndexBuild) => number | null) => {
      const xs = g.map(f).filter((v): v is number => v !== null).sort((a, b) => a - b);
      return xs.length ? median(xs) : null;
    };
    const indexMs = med((b) => b.indexMs)!;
    // Each phase's median duration over the builds where it appeared.
    const names = [...new Set(g.flatMap((b) => b.phases.map((p) => p.name)))];
    const phases = names.map((name) => {
      const ms = med((b) => {
        const own = b.phases.filter((p) => p.name === name);
        return own.length ? own.reduce((n, p) => n + p.endMs - p.startMs, 0) : null;
      })!;
      return { name, ms, share: indexMs > 0 ? ms / indexMs : 0 };
    });
    return {
      server: g[0].server,
      settings: g[0].settings,
      builds: g.length,
      indexMs,
      cpuS: med((b) => b.cpuS),
      peakRssBytes: med((b) => b.peakRssBytes),
      readBytes: med((b) => b.readBytes),
      writeBytes: med((b) => b.writeBytes),
      datadirBytes: med((b) => b.datadirBytes),
      phases,
    };
  });
}
