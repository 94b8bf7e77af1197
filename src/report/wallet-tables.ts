/**
 * The tables of the wallet part, rendered the same way into Markdown and HTML: the wallet runs,
 * time to synced per server, every failed sync, held wallets and arrivals of load runs, block
 * notifications beside each server's polling setup, and the request mix per step.
 */
import { answeringText } from '../core/answering';
import { heldReconnectsText, type HeldReconnects } from '../core/held-reconnects';
import { outageText } from '../core/outages';
import { SYNC_STEPS } from '../core/sync-steps';
import { percentile } from '../core/quantiles';
import { sortedLine } from '../core/percentile-line';
import { stoppedAnsweringText } from '../core/stopped-answering';
import { leastSquares } from './fit';
import { reportReplyHolds } from './tables';
import { medianOf } from './median';
import { fmtMs, Table } from './table';
import type { HeldSummary, WalletReport, WalletRunReport, WalletRunRow, WalletSyncPoint } from './wallet-model';

export const WALLET_NOTE =
  'A wallet sync is every request a wallet sends to be synced on a fresh connection, from connect to synced; ' +
  'its size is the number of transactions the wallet is known to have. Warm-up passes are not counted. ' +
  'Medians and percentiles are nearest-rank, over the ok syncs; failed syncs are counted by error category and the step they failed in.';

const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
/** Request counts are sums of means (thirds and such): one decimal, or a whole number when it is one. */
function fmtCount(v: number): string {
  const tenths = Math.round(v * 10) / 10;
  return Number.isInteger(tenths) ? String(tenths) : tenths.toFixed(1);
}
const fmtKiB = (bytes: number) => (bytes / 1024).toFixed(1);

export function runName(run: WalletRunRow): string {
  return `wallet ${run.kind} run ${run.number} (${run.workload})`;
}

function loadSetup(configJson: string): string {
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(configJson) as Record<string, unknown>;
  } catch {
    return '–'; // an unreadable config is shown as absent, not fatal to the report
  }
  const parts: string[] = [];
  if (typeof c.hold === 'number') parts.push(`hold ${c.hold}`);
  if (typeof c.rate === 'number') parts.push(`${c.rate} arrivals/s${typeof c.durationMs === 'number' ? ` for ${c.durationMs / 1000} s` : ''}`);
  if (c.notify === true) parts.push(`notify${typeof c.blocks === 'number' ? ` ${c.blocks} blocks` : ''}`);
  return parts.join(', ') || '–';
}

export function walletRunsTable(report: WalletReport): Table {
  const head = ['run', 'kind', 'workload', 'started', 'status', 'wallets', 'passes (warm-up) / load', 'tool'];
  const rows = report.runs.map(({ run }) => [
    String(run.number),
    run.kind,
    run.workload,
    when(run.started_at),
    run.status,
    `${run.wallets_path} (sha256 ${run.wallets_hash.slice(0, 12)})`,
    run.kind === 'bench' ? `${run.passes ?? '–'} (${run.warmup ?? '–'})` : loadSetup(run.config_json),
    `electrum-bench ${run.tool_version}${run.git_commit ? ` @ ${run.git_commit.slice(0, 10)}` : ''}, node ${run.node_version}`,
  ]);
  const how = report.chosen === 'latest' ? ' — the latest finished run of each kind and workload' : '';
  return { title: `Wallet runs${how}`, head, align: head.map(() => 'left'), rows };
}

/** The run's largest wallet, the same for every server so their figures compare. */
function largestWallet(points: WalletSyncPoint[]): { wallet: string; txs: number } | null {
  let best: WalletSyncPoint | null = null;
  for (const p of points) if (!best || p.txs > best.txs || (p.txs === best.txs && p.wallet < best.wallet)) best = p;
  return best && { wallet: best.wallet, txs: best.txs };
}

export function syncTimeTable(r: WalletRunReport): Table {
  const largest = largestWallet(r.points);
  const head = [
    'server',
    'software',
    'wallets',
    'syncs',
    'ok',
    'failed',
    'failed in warm-up',
    'mismatched',
    'median of wallet medians ms',
    ...(largest ? [`${largest.wallet} (${largest.txs} txs) ms`] : []),
    'slope ms/100 txs',
  ];
  const rows = r.totals.map((t) => {
    const mine = r.points.filter((p) => p.server === t.server && p.medianMs !== null);
    const medians = mine.map((p) => p.medianMs as number).sort((a, b) => a - b);
    const big = largest && mine.find((p) => p.wallet === largest.wallet);
    const fit = leastSquares(mine.map((p) => p.txs), mine.map((p) => p.medianMs as number));
    const server = r.servers.find((s) => s.name === t.server);
    const said = server?.answering ? answeringText(server.answering) : null;
    return [
      said ? `${t.server}: ${said}` : t.server,
      server?.record.software ?? '–',
      String(t.wallets),
      String(t.counted),
      String(t.ok),
      String(t.failed),
      String(t.warmupFailed),
      String(t.mismatched),
      fmtMs(medianOf(medians)),
      ...(largest ? [fmtMs(big ? big.medianMs : null)] : []),
      fit === null ? '–' : (fit.slope * 100).toFixed(3),
    ];
  });
  return {
    title: `Time to synced — ${runName(r.run)}`,
    note:
      'Per server: wallets synced, counted syncs (warm-up excluded), how many were ok or failed; mismatched: ok syncs whose findings differ from what the wallet is known to hold. ' +
      "Each wallet's time to synced is the median of its ok counted syncs; the slope is a least-squares fit of those medians against the wallet's size." +
      heldRepliesNote(r),
    head,
    align: head.map((_, i) => (i < 2 ? 'left' : 'right')),
    rows,
  };
}

/** Every failed sync of the selected runs, so none is lost from the charts' medians; null when none failed. */
export function failedSyncsTable(report: WalletReport): Table | null {
  const rows = report.runs.flatMap((r) =>
    r.failures.map((f) => [
      String(r.run.number),
      r.run.workload,
      f.server,
      f.category,
      f.step ?? '–',
      String(f.counted),
      String(f.warmup),
      `${f.wallets} (${f.minTxs === f.maxTxs ? f.minTxs : `${f.minTxs}–${f.maxTxs}`} txs)`,
      f.example ?? '–',
    ]),
  );
  if (rows.length === 0) return null;
  const head = ['run', 'workload', 'server', 'error', 'failed in step', 'counted', 'warm-up', 'wallets (sizes)', 'e.g.'];
  return {
    title: 'Failed wallet syncs',
    note: 'Syncs that ended in an error, by category and the sync step whose request failed. Counted: in the measured passes (load runs: every sync); warm-up: in warm-up passes.',
    head,
    align: head.map((h) => (['counted', 'warm-up', 'run'].includes(h) ? 'right' : 'left')),
    rows,
  };
}

export function walletLoadTable(r: WalletRunReport): Table {
  const head = [
    'server',
    'held',
    'time to hold',
    'server RSS per held wallet',
    'hold syncs ok / failed',
    'arrivals',
    'synced',
    'failed',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'max ms',
    'schedule lag p99 ms',
  ];
  const lostAny = r.held.some((h) => (h.reconnects?.lost ?? 0) > 0);
  if (lostAny) head.splice(5, 0, 'held connections lost');
  const rows = r.servers.map((s) => {
    const held = r.held.find((h) => h.server === s.name);
    const a = r.arrivals.find((x) => x.server === s.name);
    const t = r.totals.find((x) => x.server === s.name)!;
    const holdOk = t.ok - (a?.ok ?? 0);
    const holdFailed = t.failed - (a?.failed ?? 0);
    const line = sortedLine(a?.fromIntendedMs ?? []);
    return [
      serverCell(s.name, held),
      held?.held == null ? '–' : String(held.held),
      held?.holdSeconds == null ? '–' : `${held.holdSeconds.toFixed(1)} s`,
      held?.rssPerHeldKiB == null ? '–' : `${held.rssPerHeldKiB.toFixed(1)} KiB`,
      `${holdOk} / ${holdFailed}`,
      ...(lostAny ? [lostText(held?.reconnects ?? null)] : []),
      String(a?.arrivals ?? 0),
      String(a?.ok ?? 0),
      String(a?.failed ?? 0),
      fmtMs(line.p50),
      fmtMs(line.p90),
      fmtMs(line.p99),
      fmtMs(line.max),
      fmtMs(a ? percentile(a.lagMs, 0.99) : null),
    ];
  });
  return {
    title: `Held wallets and arrivals — ${runName(r.run)}`,
    note:
      'Held: wallets synced and then kept connected and subscribed (from the run\'s summary), the time it took to hold them and the server\'s RSS growth per held wallet where its process was known. ' +
      'Hold syncs: every sync made to fill the hold (more than held when syncs still running finished after it was full). ' +
      (lostAny
        ? 'Held connections lost: held wallets whose connection dropped, how many connected and synced again and how long after the loss, and the outages, from the first loss to the first handshake the server answered after it. '
        : '') +
      'Arrivals: wallets arriving on a schedule; p50…max is the time from when each was due to synced (schedule lag + time to synced), over the ok arrivals.' +
      heldRepliesNote(r),
    head,
    align: head.map((h, i) => (i === 0 || h === 'held connections lost' ? 'left' : 'right')),
    rows,
  };
}

/**
 * A server's name, with first what makes its figures partial: it stopped answering its wallet
 * syncs, as the run's summary said it (over its whole run); a run stored before that was kept says
 * it of its arrivals alone.
 */
function serverCell(name: string, held: HeldSummary | undefined): string {
  if (held?.stoppedAnswering !== undefined) return held.stoppedAnswering ? `${name}: wallet syncs ${stoppedAnsweringText(held.stoppedAnswering)}` : name;
  return held?.arrivalsStoppedAnswering ? `${name}: arrivals ${stoppedAnsweringText(held.arrivalsStoppedAnswering)}` : name;
}

function lostText(x: HeldReconnects | null): string {
  if (!x || x.lost === 0) return '–';
  return [heldReconnectsText(x), ...x.outages.map(outageText)].join('; ');
}

/**
 * A wallet load's --find-max: each server's steps, the arrival rate tried and what it achieved,
 * time to synced at the SLO's percentile, and the verdict; null without a search.
 */
export function findMaxTable(r: WalletRunReport): Table | null {
  if (!r.findMax) return null;
  const head = ['server', 'step', 'phase', 'arrivals/s', 'answered/s', 'p50 ms', 'at the SLO ms', 'errors', 'verdict'];
  const rows = r.findMax.flatMap((f) =>
    f.steps.map((s) => [
      f.server,
      String(s.step),
      s.phase ?? '',
      String(s.targetRate),
      String(s.achievedRate),
      fmtMs(s.p50Ms),
      fmtMs(s.sloValueMs ?? s.p99Ms),
      `${(s.errorRate * 100).toFixed(2)}%`,
      s.passed ? 'within' : 'over',
    ]),
  );
  return {
    title: `Find-max: wallets arriving, time to synced within the SLO — ${runName(r.run)}`,
    note:
      r.findMax.map((f) => f.statement ?? `${f.server}: max sustainable ${f.maxSustainableRate ?? 'none'}/s`).join(' ') +
      ' Each step is wallets arriving at a constant rate (held wallets kept), judged on time to synced from each arrival\'s due time at the SLO\'s percentile, errors and the answered rate; the arrivals table below adds up every step.',
    head,
    align: head.map((_, i) => (i === 0 || i === 2 || i === 8 ? 'left' : 'right')),
    rows,
  };
}

/** A wallet load's --slo-notify: each server's held steps and their headers notifications; null without a search. */
export function heldSearchTable(r: WalletRunReport): Table | null {
  if (!r.findMaxHeld) return null;
  const head = ['server', 'step', 'held', 'blocks', 'p50 ms', 'at the SLO ms', 'missing', 'verdict'];
  const rows = r.findMaxHeld.flatMap((f) =>
    f.steps.map((s) => [f.server, String(s.step), s.held === s.wanted ? String(s.held) : `${s.held} of ${s.wanted}`, String(s.blocks), fmtMs(s.p50Ms), fmtMs(s.sloValueMs), String(s.missing), s.passed ? 'within' : `over: ${s.why}`]),
  );
  return {
    title: `Find-max: held wallets told of a block within the SLO — ${runName(r.run)}`,
    note:
      r.findMaxHeld.map((f) => f.statement ?? `${f.server}: ${f.maxHeld ?? 'none'} held`).join(' ') +
      " Each step holds more wallets (connected and subscribed) and mines blocks; a step is judged on every held connection's headers notification, timed from the mining call, at the SLO's percentile, and on none missing.",
    head,
    align: head.map((_, i) => (i === 0 || i === 7 ? 'left' : 'right')),
    rows,
  };
}

/** Null when the run measured no notifications (a load run without --notify, or no held wallet). */
export function notificationsTable(r: WalletRunReport): Table | null {
  if (r.notifications.length === 0) return null;
  const head = ['server', 'block polling', 'kind', 'blocks', 'expected', 'heard', 'missing', 'duplicate', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'];
  const rows = r.servers.flatMap((s) =>
    r.notifications
      .filter((n) => n.server === s.name)
      .map((n) => [n, sortedLine(n.latenciesMs)] as const)
      .map(([n, line]) => [
        s.name,
        s.polling?.text ?? (s.polling?.pollMs != null ? `every ${s.polling.pollMs} ms` : '–'),
        n.kind,
        String(n.blocks),
        String(n.expected),
        String(n.heard),
        String(n.missing),
        String(n.duplicate),
        fmtMs(line.p50),
        fmtMs(line.p90),
        fmtMs(line.p99),
        fmtMs(line.max),
      ]),
  );
  return {
    title: `Block notifications — ${runName(r.run)}`,
    note:
      'Per held connection and block: the headers notification, and for each paid script it subscribed to, the script status notification; ' +
      'latency from the moment the block was asked of the node to the first such notification. Expected = heard + missing (none within the wait); ' +
      'a duplicate is the same notification sent again. A server learns of a block by polling its node, so its polling interval bounds what it can do.',
    head,
    align: head.map((_, i) => (i < 3 ? 'left' : 'right')),
    rows,
  };
}

/** The steps present in the runs, in the order a sync goes through them. */
export function stepsOf(report: WalletReport): string[] {
  const present = new Set(report.runs.flatMap((r) => r.mix.map((m) => m.step)));
  return [...SYNC_STEPS.filter((s) => present.has(s)), ...[...present].filter((s) => !(SYNC_STEPS as readonly string[]).includes(s)).sort()];
}

export function requestMixTable(report: WalletReport): Table {
  const steps = stepsOf(report);
  const head = ['run', 'workload', 'server', 'wallets', 'requests', 'calls', 'KiB received', ...steps];
  const rows = report.runs.flatMap((r) =>
    r.servers.map((s) => {
      const mix = r.mix.filter((m) => m.server === s.name);
      const wallets = r.points.filter((p) => p.server === s.name && p.nOk > 0).length;
      const sum = (f: 'requests' | 'calls' | 'bytes') => mix.reduce((n, m) => n + m[f], 0);
      const cell = (step: string) => {
        const m = mix.find((x) => x.step === step);
        if (!m) return '–';
        return m.calls === m.requests ? fmtCount(m.requests) : `${fmtCount(m.requests)} (${fmtCount(m.calls)})`;
      };
      if (wallets === 0) return [String(r.run.number), r.run.workload, s.name, '0', 'no ok sync', '–', '–', ...steps.map(() => '–')];
      return [String(r.run.number), r.run.workload, s.name, String(wallets), fmtCount(sum('requests')), fmtCount(sum('calls')), fmtKiB(sum('bytes')), ...steps.map(cell)];
    }),
  );
  return {
    title: 'Request mix: one sync of each wallet',
    note:
      "Per run and server, what syncing every wallet once sends: for each wallet the mean over its ok counted syncs, summed over the wallets with one. " +
      'A request is one message: a single call or a JSON batch; calls count the batch items. Per step: requests (calls, when batched). ' +
      'Bytes are the replies as received, framing included: a server that pads its messages against traffic analysis (ElectrumX 2.0 pads to powers of two, at least 1 KiB) costs more bytes for the same answers.',
    head,
    align: head.map((_, i) => (i < 3 ? 'left' : 'right')),
    rows,
  };
}

/** ElectrumX's reply hold where a wallet run's servers had it (src/servers/reply-hold.ts), as a note's last lines; '' when none did. */
function heldRepliesNote(r: WalletRunReport): string {
  const held = reportReplyHolds(r.servers.map((s) => ({ label: s.name, record: s.record })));
  return held ? `\n${held}` : '';
}
