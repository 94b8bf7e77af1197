/**
 * Resource samples in the results database: written as the sampler delivers them, summarised per
 * run and target from SQL (first and last readings of cumulative counters, maxima of gauges).
 */
import type Database from 'better-sqlite3';
import type { ResourceRow } from '../core/resource-row';

/** Whose samples: a run's, or one index build of it (an index run samples each build on its own). */
export interface SampledRun {
  runId: number;
  buildId?: number;
}

export function resourceWriter(db: Database.Database, of: SampledRun): (rows: ResourceRow[]) => void {
  const addRow = db.prepare(`INSERT INTO resource_samples (run_id, build_id, target, at_ms, processes, cpu_user_s, cpu_system_s,
      rss_bytes, peak_rss_bytes, read_bytes, write_bytes, read_calls, write_calls, fds, threads, datadir_bytes,
      host_cpu_busy_s, host_cpu_idle_s, host_iowait_s, host_mem_available_bytes, host_disk_read_bytes, host_disk_write_bytes)
    VALUES (@runId, @buildId, @target, @atMs, @processes, @cpuUser, @cpuSystem, @rss, @peakRss, @readBytes, @writeBytes, @readCalls,
      @writeCalls, @fds, @threads, @datadir, @hostBusy, @hostIdle, @hostIowait, @hostMem, @hostRead, @hostWrite)`);
  const addMetric = db.prepare('INSERT INTO metric_samples (run_id, build_id, target, at_ms, name, value) VALUES (?, ?, ?, ?, ?, ?)');
  const { runId } = of;
  const buildId = of.buildId ?? null;
  return db.transaction((rows: ResourceRow[]) => {
    for (const r of rows) {
      const p = r.proc;
      const h = r.host;
      addRow.run({
        runId,
        buildId,
        target: r.target,
        atMs: r.atMs,
        processes: p ? p.pids.length : null,
        cpuUser: p?.cpuUserS ?? null,
        cpuSystem: p?.cpuSystemS ?? null,
        rss: p?.rssBytes ?? null,
        peakRss: p?.peakRssBytes ?? null,
        readBytes: p?.readBytes ?? null,
        writeBytes: p?.writeBytes ?? null,
        readCalls: p?.readCalls ?? null,
        writeCalls: p?.writeCalls ?? null,
        fds: p?.fds ?? null,
        threads: p?.threads ?? null,
        datadir: r.datadirBytes,
        hostBusy: h?.cpuBusyS ?? null,
        hostIdle: h?.cpuIdleS ?? null,
        hostIowait: h?.cpuIowaitS ?? null,
        hostMem: h?.memAvailableBytes ?? null,
        hostRead: h?.diskReadBytes ?? null,
        hostWrite: h?.diskWriteBytes ?? null,
      });
      for (const m of r.metrics) addMetric.run(runId, buildId, r.target, r.atMs, m.name, m.value);
    }
  });
}

export interface ResourceSummary {
  target: string;
  seconds: number; // from the first reading to the last
  cpuSeconds: number | null; // user + system over the run
  peakRssBytes: number | null;
  readBytes: number | null;
  writeBytes: number | null;
  datadirStartBytes: number | null;
  datadirEndBytes: number | null;
}

/**
 * Per target: counters as last − first reading, peak RSS as the largest reading of the tree's
 * resident memory or its processes' own peaks (VmHWM), datadir at the first and last reading.
 */
export function resourceSummaries(db: Database.Database, of: SampledRun): ResourceSummary[] {
  const rows = db
    .prepare(
      `WITH r AS (SELECT * FROM resource_samples WHERE run_id = ? AND build_id IS ? AND target != 'host'),
            span AS (SELECT target, min(at_ms) AS t0, max(at_ms) AS t1 FROM r GROUP BY target),
            p AS (SELECT target, min(at_ms) AS p0, max(at_ms) AS p1 FROM r WHERE cpu_user_s IS NOT NULL GROUP BY target),
            d AS (SELECT target, min(at_ms) AS d0, max(at_ms) AS d1 FROM r WHERE datadir_bytes IS NOT NULL GROUP BY target)
       SELECT span.target AS target, (span.t1 - span.t0) / 1000.0 AS seconds,
              (SELECT cpu_user_s + cpu_system_s FROM r WHERE r.target = span.target AND r.at_ms = p.p1)
                - (SELECT cpu_user_s + cpu_system_s FROM r WHERE r.target = span.target AND r.at_ms = p.p0) AS cpuSeconds,
              (SELECT max(max(coalesce(rss_bytes, 0)), max(coalesce(peak_rss_bytes, 0))) FROM r WHERE r.target = span.target AND r.cpu_user_s IS NOT NULL) AS peakRssBytes,
              (SELECT read_bytes FROM r WHERE r.target = span.target AND r.at_ms = p.p1) - (SELECT read_bytes FROM r WHERE r.target = span.target AND r.at_ms = p.p0) AS readBytes,
              (SELECT write_bytes FROM r WHERE r.target = span.target AND r.at_ms = p.p1) - (SELECT write_bytes FROM r WHERE r.target = span.target AND r.at_ms = p.p0) AS writeBytes,
              (SELECT datadir_bytes FROM r WHERE r.target = span.target AND r.at_ms = d.d0) AS datadirStartBytes,
              (SELECT datadir_bytes FROM r WHERE r.target = span.target AND r.at_ms = d.d1) AS datadirEndBytes
         FROM span LEFT JOIN p ON p.target = span.target LEFT JOIN d ON d.target = span.target
        ORDER BY span.target`,
    )
    .all(of.runId, of.buildId ?? null) as ResourceSummary[];
  return rows;
}
