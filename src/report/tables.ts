/**
 * The numbers beside the charts, built from the model as tables of strings: the runs and servers
 * measured, and per server × method the latency distribution, errors by category, the ratio of
 * each p50 to a baseline server's and a least-squares slope against the address's size.
 */
import { answeringText } from '../core/answering';
import { replyHoldLine, replyHolds, storedIdentity } from '../servers/reply-hold';
import { isWalletCallName } from '../core/methods';
import type { ReportMethod, ReportModel } from './model';
import { SLOPE_AXIS } from './charts/definitions';
import { leastSquares } from './fit';
import { fmtErrors, fmtMs, Table } from './table';
import { verdictText } from '../verdicts/verdict';
import { isProfileName, PROFILES, TRANSPORT_LABELS } from '../servers/profiles';

/**
 * How a server's calls went: over WebSocket when its stored address says so, else its profile's
 * transport; a profile this version does not know is taken for an Electrum server.
 */
export function viaOf(model: ReportModel, server: string): string {
  const record = model.servers.find((s) => s.label === server)?.record;
  if (record && /^wss?:\/\//.test(record.url)) return TRANSPORT_LABELS.websocket;
  const profile = record?.profile ?? '';
  return TRANSPORT_LABELS[isProfileName(profile) ? PROFILES[profile].transport : 'electrum'];
}

/**
 * A --cold run's cold passes beside its warm ones, per server and method (null for other runs):
 * the two medians, and each address's first touch after a restart summed against the same calls
 * warm (each one's mean over the warm passes), where a restart's cost shows even when the medians
 * do not move.
 */
export function coldTable(model: ReportModel): Table | null {
  const cold = model.cold ?? [];
  if (cold.length === 0) return null;
  const head = ['server', 'method', 'warm p50 ms', 'cold p50 ms', 'cold n', 'cold ok', 'cold max ms', 'first touches', 'first-touch sum ms', 'same calls warm ms', 'cold errors'];
  return {
    title: 'Cold and warm passes',
    note:
      'Counted passes alternated: a cold pass after the OS page cache was dropped and the servers restarted on their own index (on fresh connections), ' +
      'then a warm pass on the same servers and connections. The latency table above is the warm passes alone. ' +
      "First touches: in each cold pass, the first call each address got from its server after the restart (counted under that call's method); " +
      'their latencies summed, beside each of the same calls\' mean over the warm passes, summed (in a run stored before schema 14: beside the warm medians, marked "median").',
    head,
    align: head.map((_, i) => (i < 2 || i === head.length - 1 ? 'left' : 'right')),
    rows: cold.map((c) => [
      c.server,
      c.method,
      fmtMs(c.warmP50Ms),
      fmtMs(c.coldP50Ms),
      String(c.n),
      String(c.nOk),
      fmtMs(c.coldMaxMs),
      String(c.firstTouches),
      c.firstTouchSumMs.toFixed(1),
      c.warmMeanSumMs === null ? `${c.warmMedianSumMs.toFixed(1)} median` : c.warmMeanSumMs.toFixed(1),
      fmtErrors(c.errors),
    ]),
  };
}

/** A --cold run's verdict per server: its first touches after a restart against the same calls warm. */
export function coldVerdictsTable(model: ReportModel): Table | null {
  const verdicts = model.coldVerdicts ?? [];
  if (verdicts.length === 0) return null;
  const head = ['server', 'first-touch sum ms', 'same calls warm ms', 'cold vs warm'];
  return {
    title: 'Slower cold?',
    note:
      "Each server's first touches after a restart (all methods) against the same calls warm (each call's mean over the warm passes), in total: the change with its " +
      "95 % interval from a bootstrap over the cold passes, the warm passes and the first touches; 'slower' only when the whole interval is above the noise floor, '~' when the restart's cost did not show above the noise.",
    head,
    align: head.map((_, i) => (i === 0 || i === head.length - 1 ? 'left' : 'right')),
    rows: verdicts.map((v) => [v.server, (v.coldSumNs / 1e6).toFixed(1), (v.warmSumNs / 1e6).toFixed(1), verdictText(v.verdict)]),
  };
}

export function summaryTable(model: ReportModel, baseline?: string): Table {
  const base = new Map<ReportMethod, number | null>();
  if (baseline) for (const s of model.summaries.filter((s) => s.server === baseline)) base.set(s.method, s.p50Ms);
  const head = ['server', 'via', 'method', 'n', 'ok', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', ...(baseline ? [`p50 ÷ ${baseline}`] : []), 'slope ms/100'];
  const rows = model.summaries.map((s) => {
    const axis = SLOPE_AXIS[s.method];
    const pts = model.points.filter((p) => p.server === s.server && p.method === s.method && p.medianMs !== null && p[axis] !== null);
    const fit = leastSquares(pts.map((p) => p[axis] as number), pts.map((p) => p.medianMs as number));
    const b = base.get(s.method);
    const ratio = b && s.p50Ms !== null ? `${(s.p50Ms / b).toFixed(2)}×` : '–';
    return [
      s.server,
      viaOf(model, s.server),
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
      (model.summaries.some((s) => isWalletCallName(s.method)) ? ' For the wallet calls, per 100 bytes of the transaction for tx and per 100 transactions for merkle, header and mempool.' : '') +
      (baseline ? ` The ratio divides each p50 by ${baseline}'s p50 for the same method.` : ''),
    head,
    align: head.map((h, i) => (i < 3 || h === 'errors' ? 'left' : 'right')),
    rows,
  };
}

/** Outcomes that mean "this server will not answer an address this large". */
const LIMIT_OUTCOMES = ['history-too-large', 'wrong-size'];

/**
 * The largest servable history per server and method, from the run's own outcomes: the largest
 * address (by confirmed transactions) answered, and the smallest refused (an error naming a limit,
 * or an answer smaller than the dataset's, which is how Fulcrum refuses).
 */
export function limitsTable(model: ReportModel): Table {
  const head = ['server', 'via', 'method', 'largest history served', 'smallest history refused', 'addresses refused'];
  const rows = model.summaries.map((s) => {
    const served = model.points.filter((p) => p.server === s.server && p.method === s.method && p.nOk > 0).map((p) => p.txCount);
    const refused = model.errors.filter((e) => e.server === s.server && e.method === s.method && LIMIT_OUTCOMES.includes(e.category));
    const refusedAddresses = new Set(refused.map((e) => e.addressIdx));
    return [
      s.server,
      viaOf(model, s.server),
      s.method,
      served.length ? `${Math.max(...served)} txs` : '–',
      refused.length ? `${Math.min(...refused.map((e) => e.txCount))} txs` : 'none refused',
      String(refusedAddresses.size),
    ];
  });
  return {
    title: 'Largest servable history',
    note:
      'Per server and method: the largest address (in confirmed transactions) answered at least once, and the smallest refused: ' +
      'an error naming a limit (history-too-large) or an answer smaller than the dataset says (wrong-size, e.g. Fulcrum above its max_history answering []). ' +
      'An address is counted refused if any counted call for it was.',
    head,
    align: head.map((_, i) => (i < 3 ? 'left' : 'right')),
    rows,
  };
}

/**
 * One server measured over both transports in one run (Esplora's or mempool's electrs' Electrum
 * port and its REST API, as the REST profile's `restOf` says): the two side by side, method by method.
 */
export function transportsTable(model: ReportModel): Table | null {
  const pairs: Array<[string, string]> = [];
  for (const rest of model.servers.filter((s) => viaOf(model, s.label) === 'REST')) {
    const of = isProfileName(rest.record.profile) ? PROFILES[rest.record.profile].restOf : undefined;
    const electrum = model.servers.find((s) => s.run.id === rest.run.id && s.record.profile === of && s.label !== rest.label);
    if (electrum) pairs.push([electrum.label, rest.label]);
  }
  if (pairs.length === 0) return null;
  const head = ['Electrum', 'REST', 'method', 'Electrum p50 ms', 'REST p50 ms', 'Electrum p99 ms', 'REST p99 ms', 'REST ÷ Electrum (p50)'];
  const rows = pairs.flatMap(([e, r]) =>
    model.summaries
      .filter((s) => s.server === e)
      .map((es) => {
        const rs = model.summaries.find((s) => s.server === r && s.method === es.method);
        const ratio = rs?.p50Ms != null && es.p50Ms ? `${(rs.p50Ms / es.p50Ms).toFixed(2)}×` : '–';
        return [e, r, es.method, fmtMs(es.p50Ms), fmtMs(rs?.p50Ms ?? null), fmtMs(es.p99Ms), fmtMs(rs?.p99Ms ?? null), ratio];
      }),
  );
  return {
    title: 'One server, two transports: Electrum protocol and REST API',
    note:
      'The same server instance and addresses in the same run. A REST history is one call however many pages it takes ' +
      '(25 confirmed transactions a page after the first): its latency is every page\'s round trip summed, each from its write to its last byte, ' +
      'so more pages cost more, and our parsing between pages is left out as an Electrum call\'s is.',
    head,
    align: head.map((_, i) => (i < 3 ? 'left' : 'right')),
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
  const head = ['server', 'run', 'profile', 'via', 'software', 'protocol', 'endpoint'];
  const rows = model.servers.map((s) => {
    const said = s.answering ? answeringText(s.answering) : null;
    return [said ? `${s.label}: ${said}` : s.label, String(s.run.id), s.record.profile, viaOf(model, s.label), s.record.software ?? '–', s.record.protocol ?? '–', s.record.url];
  });
  const note = reportReplyHolds(model.servers);
  return { title: 'Servers', ...(note ? { note } : {}), head, align: head.map(() => 'left'), rows };
}

/** ElectrumX's reply hold, one line per stored server whose latencies contain it (src/servers/reply-hold.ts); undefined when none does. */
export function reportReplyHolds(servers: ReadonlyArray<{ label: string; record: { software: string | null; url: string; setup_json?: string | null } }>): string | undefined {
  const lines = replyHolds(servers.map((s) => storedIdentity({ ...s.record, name: s.label }))).map(replyHoldLine);
  return lines.length ? lines.join('\n') : undefined;
}
