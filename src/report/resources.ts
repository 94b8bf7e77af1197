/**
 * The report's resource part, read once from the results database: per bench run with samples,
 * each sampled process's time series (CPU % of one core, RSS, disk read and write per second,
 * derived from the cumulative counters between consecutive readings) and its cost table; and the
 * latest completed index-bench run: medians per server (and setting value), with phases.
 */
import type Database from 'better-sqlite3';
import { resourceSummaries } from '../store/resources';
import { summarizeBuilds, type IndexBuild, type IndexSummary } from '../indexing/index-bench';
import type { Table } from './table';

export interface ResourcePoint {
  target: string;
  t: number; // seconds since the run's first reading
  cpuPercent: number | null;
  rssMiB: number | null;
  readMiBs: number | null;
  writeMiBs: number | null;
}

export interface ResourceRunReport {
  runId: number;
  points: ResourcePoint[];
  table: Table;
}

export interface IndexRunReport {
  runId: number;
  tipHeight: number | null;
  sweep: { name: string; values: string[] } | null;
  summaries: IndexSummary[];
}

const MiB = 1024 * 1024;
const mib = (b: number | null) => (b === null ? '–' : `${(b / MiB).toFixed(1)} MiB`);

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
}

export function readResourceRuns(db: Database.Database, runIds: number[]): ResourceRunReport[] {
  if (!hasTable(db, 'resource_samples')) return [];
  const out: ResourceRunReport[] = [];
  for (const runId of runIds) {
    const rows = db
      .prepare(
        `SELECT target, at_ms AS at, cpu_user_s + cpu_system_s AS cpu, rss_bytes AS rss, read_bytes AS rd, write_bytes AS wr
           FROM resource_samples WHERE run_kind = 'bench' AND run_id = ? AND target != 'host' AND cpu_user_s IS NOT NULL ORDER BY target, at_ms`,
      )
      .all(runId) as Array<{ target: string; at: number; cpu: number; rss: number; rd: number; wr: number }>;
    if (rows.length === 0) continue;
    const t0 = Math.min(...rows.map((r) => r.at));
    const points: ResourcePoint[] = [];
    rows.forEach((r, i) => {
      const prev = rows[i - 1];
      const dt = prev && prev.target === r.target ? (r.at - prev.at) / 1000 : 0;
      // Rates need two readings of the same process tree; a restart (counters going down) starts over.
      const rate = (a: number, b: number) => (dt > 0 && a >= b ? (a - b) / dt : null);
      points.push({
        target: r.target,
        t: (r.at - t0) / 1000,
        cpuPercent: dt > 0 ? (rate(r.cpu, prev.cpu) === null ? null : rate(r.cpu, prev.cpu)! * 100) : null,
        rssMiB: r.rss / MiB,
        readMiBs: dt > 0 && rate(r.rd, prev.rd) !== null ? rate(r.rd, prev.rd)! / MiB : null,
        writeMiBs: dt > 0 && rate(r.wr, prev.wr) !== null ? rate(r.wr, prev.wr)! / MiB : null,
      });
    });
    const head = ['process', 'seconds', 'CPU s', 'peak RSS', 'disk read', 'disk write', 'datadir start → end'];
    const table: Table = {
      title: `What the servers spent — run ${runId}`,
      note: 'Sampled from /proc beside the run (each process with its children): CPU-seconds and disk bytes between the first and last reading, peak RSS (VmHWM), the data directory at both ends.',
      head,
      align: head.map((_, i) => (i === 0 ? 'left' : 'right')),
      rows: resourceSummaries(db, 'bench', runId).map((s) => [
        s.target,
        s.seconds.toFixed(1),
        s.cpuSeconds === null ? '–' : s.cpuSeconds.toFixed(2),
        mib(s.peakRssBytes),
        mib(s.readBytes),
        mib(s.writeBytes),
        s.datadirStartBytes === null ? '–' : `${mib(s.datadirStartBytes)} → ${mib(s.datadirEndBytes)}`,
      ]),
    };
    out.push({ runId, points, table });
  }
  return out;
}

export function readLatestIndexRun(db: Database.Database): IndexRunReport | null {
  if (!hasTable(db, 'index_runs')) return null;
  const run = db.prepare(`SELECT id, chain_json, config_json FROM index_runs WHERE status = 'completed' ORDER BY id DESC LIMIT 1`).get() as
    | { id: number; chain_json: string; config_json: string }
    | undefined;
  if (!run) return null;
  const builds = (
    db.prepare('SELECT * FROM index_builds WHERE run_id = ? ORDER BY id').all(run.id) as Array<{
      server: string;
      settings_json: string;
      repeat: number;
      index_ms: number;
      cpu_s: number | null;
      peak_rss_bytes: number | null;
      read_bytes: number | null;
      write_bytes: number | null;
      datadir_bytes: number | null;
      phases_json: string;
    }>
  ).map(
    (b): IndexBuild => ({
      server: b.server,
      settings: JSON.parse(b.settings_json),
      repeat: b.repeat,
      indexMs: b.index_ms,
      cpuS: b.cpu_s,
      peakRssBytes: b.peak_rss_bytes,
      readBytes: b.read_bytes,
      writeBytes: b.write_bytes,
      datadirBytes: b.datadir_bytes,
      phases: JSON.parse(b.phases_json),
    }),
  );
  const config = JSON.parse(run.config_json) as { sweep: { name: string; values: string[] } | null };
  return { runId: run.id, tipHeight: (JSON.parse(run.chain_json) as { tipHeight: number | null }).tipHeight, sweep: config.sweep, summaries: summarizeBuilds(builds) };
}

export function indexTable(r: IndexRunReport): Table {
  const head = ['server', 'setting', 'builds', 'to tip s', 'CPU s', 'peak RSS', 'disk read', 'disk write', 'datadir', 'phases (share of the time)'];
  return {
    title: `Index build — index-bench run ${r.runId}`,
    note:
      `Each server started on an empty data directory and timed until it listed the whole history of the dataset's largest address at the node's tip (${r.tipHeight}); ` +
      'medians of the builds. Phases are read from each server\'s own log lines.',
    head,
    align: head.map((_, i) => (i < 2 || i === head.length - 1 ? 'left' : 'right')),
    rows: r.summaries.map((s) => [
      s.server,
      Object.entries(s.settings).map(([k, v]) => `${k}=${v}`).join(' ') || '(lab)',
      String(s.builds),
      (s.indexMs / 1000).toFixed(2),
      s.cpuS === null ? '–' : s.cpuS.toFixed(2),
      mib(s.peakRssBytes),
      mib(s.readBytes),
      mib(s.writeBytes),
      mib(s.datadirBytes),
      s.phases.map((p) => `${p.name} ${Math.round(p.share * 100)} %`).join(', '),
    ]),
  };
}
