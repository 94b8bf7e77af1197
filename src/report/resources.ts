/**
 * The report's resource part, read once from the results database: per bench run with samples,
 * each sampled process's time series (CPU % of one core, RSS, disk read and write per second,
 * derived from the cumulative counters between consecutive readings) and its cost table; and the
 * latest completed index-bench run: medians per server (and setting value), with phases.
 */
import type { ResultsReader } from '../store/read';
import { summarizeBuilds, type IndexBuild, type IndexSummary } from '../core/index-builds';
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

export function readResourceRuns(reader: ResultsReader, runIds: number[]): ResourceRunReport[] {
  const out: ResourceRunReport[] = [];
  for (const runId of runIds) {
    const rows = reader.resourceSeries(runId);
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
      rows: reader.resourceSummaries(runId).map((s) => [
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

export function readLatestIndexRun(reader: ResultsReader): IndexRunReport | null {
  const latest = reader.index.latestCompleted();
  if (!latest) return null;
  const builds = latest.builds.map(
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
  const config = JSON.parse(latest.run.config_json) as { sweep: { name: string; values: string[] } | null };
  return { runId: latest.run.number, tipHeight: (JSON.parse(latest.run.chain_json) as { tipHeight: number | null }).tipHeight, sweep: config.sweep, summaries: summarizeBuilds(builds) };
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
