/**
 * The numbers beside the charts, built from the model as tables of strings: the runs and servers
 * measured, and per server × method the latency distribution, errors by category, the ratio of
 * each p50 to a baseline server's and a least-squares slope against the address's size.
 */
import type { ReportMethod, ReportModel } from './model';
import { SLOPE_AXIS } from './charts/definitions';
import { leastSquares } from './fit';
import { fmtErrors, fmtMs, Table } from './table';

export function summaryTable(model: ReportModel, baseline?: string): Table {
  const base = new Map<ReportMethod, number | null>();
  if (baseline) for (const s of model.summaries.filter((s) => s.server === baseline)) base.set(s.method, s.p50Ms);
  const head = ['server', 'method', 'n', 'ok', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', ...(baseline ? [`p50 ÷ ${baseline}`] : []), 'slope ms/100'];
  const rows = model.summaries.map((s) => {
    const axis = SLOPE_AXIS[s.method];
    const pts = model.points.filter((p) => p.server === s.server && p.method === s.method && p.medianMs !== null);
    const fit = leastSquares(pts.map((p) => p[axis]), pts.map((p) => p.medianMs as number));
    const b = base.get(s.method);
    const ratio = b && s.p50Ms !== null ? `${(s.p50Ms / b).toFixed(2)}×` : '–';
    return [
      s.server,
      s.method,
      String(s.n),
      String(s.nOk),
      fmtMs(s.p50Ms),
      fmtMs(s.p90Ms),
      fmtMs(s.p99Ms),
      fmtMs(s.maxMs),
      fmtErrors(s.errors),
      ...(baseline ? [ratio] : []),
      fit === null ? '–' : (fit.slope * 100).toFixed(3),
    ];
  });
  return {
    title: 'Latency per server and method',
    note:
      'n counts every call of the counted passes (warm-up excluded); percentiles are over the successful calls. ' +
      'The slope is a least-squares fit of the per-address medians against the address size, in ms per 100 ' +
      'transactions for balance and history and per 100 unspent outputs for utxos (listunspent).' +
      (baseline ? ` The ratio divides each p50 by ${baseline}'s p50 for the same method.` : ''),
    head,
    align: head.map((h, i) => (i < 2 || h === 'errors' ? 'left' : 'right')),
    rows,
  };
}

interface SelfCheckJson {
  eventLoopDelayMs?: { p50: number; p99: number; max: number };
  cpu?: { utilisation: number };
  scheduler?: string;
}

export function runsTable(model: ReportModel): Table {
  const head = ['run', 'started', 'status', 'dataset', 'passes (warm-up)', 'methods', 'generator event-loop delay p50 / p99 / max', 'tool'];
  const rows = model.runs.map((r) => {
    let check: SelfCheckJson | null = null;
    try {
      check = r.selfcheck_json ? (JSON.parse(r.selfcheck_json) as SelfCheckJson) : null;
    } catch {
      check = null; // an unreadable self-check is shown as absent, not fatal to the report
    }
    const d = check?.eventLoopDelayMs;
    const delay = d ? `${d.p50} / ${d.p99} / ${d.max} ms` : '–';
    const cpu = check?.cpu ? `, CPU ${(check.cpu.utilisation * 100).toFixed(1)}%` : '';
    return [
      String(r.id),
      r.started_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      r.status,
      `${r.dataset_id} (${r.dataset_lines} addresses, sha256 ${r.dataset_hash.slice(0, 12)})`,
      `${r.passes} (${r.warmup})`,
      r.methods,
      delay + cpu + (check?.scheduler ? `, ${check.scheduler}` : ''),
      `electrum-bench ${r.tool_version}${r.git_commit ? ` @ ${r.git_commit.slice(0, 10)}` : ''}, node ${r.node_version}`,
    ];
  });
  return { title: 'Runs', head, align: head.map(() => 'left'), rows };
}

export function serversTable(model: ReportModel): Table {
  const head = ['server', 'run', 'profile', 'software', 'protocol', 'endpoint'];
  const rows = model.servers.map((s) => [s.label, String(s.run.id), s.record.profile, s.record.software ?? '–', s.record.protocol ?? '–', s.record.url]);
  return { title: 'Servers', head, align: head.map(() => 'left'), rows };
}
