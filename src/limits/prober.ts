/**
 * `limits` on one server: each limit of the plan probed in turn (those already found by the run it
 * resumes are skipped), each bounded in probes and seconds, and each finding handed on as soon as it
 * is made, so a stop keeps what was found.
 */
import { performance } from 'node:perf_hooks';
import type { DatasetLine } from '../core/dataset-line';
import type { LimitFinding, LimitName, PastLimit } from '../core/server-limits';
import { isLoopbackHost } from '../core/target-safety';
import { holdConnections } from './connections';
import { holdSubscriptions } from './subscriptions';
import { probeBatch, probeLineBytes, probeResponseBytes } from './requests';
import { addressesBySize, probeSize, sizeOf, type SizeKind } from './dataset-sizes';
import { searchLimit, type ProbeResult } from './search';
import { recoveryMs, type ProbeContext } from './probe-context';

export interface LimitsPlan {
  limits: readonly LimitName[];
  /** Loopback source addresses to connect from (the first for one source); empty: the default route. */
  sourceAddresses: readonly string[];
  maxConnectionsPerSource: number;
  maxConnections: number;
  maxSubscriptions: number;
  maxBatch: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  /** Probes one limit's search may make. */
  maxProbes: number;
  /** Seconds one limit's probing may take (a probe under way finishes). */
  secondsPerLimit: number;
  /** How long to wait for the server to serve normally again after a limit. */
  recoveryWithinMs: number;
  timeoutMs: number;
  maxLineBytes: number;
  /** The dataset's addresses (for history, UTXO and response sizes); null: those limits are not probed. */
  dataset: readonly DatasetLine[] | null;
}

/**
 * Whether a stored finding answers `plan` as well as probing again would, so a rerun takes it
 * over: one cut short (by its --seconds-per-limit) is not settled, and "none up to N tried" says
 * nothing past N, so it is taken over only by a plan that would try no further.
 */
export function carriesOver(f: LimitFinding, plan: LimitsPlan, known: ReadonlyMap<LimitName, LimitFinding> = new Map()): boolean {
  // The probes' own note: the search ended before it had settled (prober's searched and sizes).
  if (f.note?.includes('cut short')) return false;
  if (f.value !== null) return true;
  return f.triedUpTo >= (planBound(f.limit, plan, known) ?? Infinity);
}

/**
 * How many connections in all the probe opens at most: from several sources, each up to the
 * per-source limit found (or the plan's per-source bound); from one, all it may, up to the total.
 */
function connectionsInAll(plan: LimitsPlan, known: ReadonlyMap<LimitName, LimitFinding>): { perSource: number; foundPerSource: number | null; max: number } {
  const sources = Math.max(1, plan.sourceAddresses.length);
  const foundPerSource = known.get('connections-per-source')?.value ?? null;
  const perSource = foundPerSource ?? (sources === 1 ? plan.maxConnections : plan.maxConnectionsPerSource);
  return { perSource, foundPerSource, max: Math.min(plan.maxConnections, perSource * sources) };
}

/** The most a plan tries of a limit; null when the plan cannot say (no dataset for its sizes). */
function planBound(limit: LimitName, plan: LimitsPlan, known: ReadonlyMap<LimitName, LimitFinding>): number | null {
  // A reduce, not Math.max(...): a mainnet dataset's lines are more arguments than a call takes.
  const largest = (of: (l: DatasetLine) => number) => (plan.dataset?.length ? plan.dataset.reduce((most, l) => Math.max(most, of(l)), 0) : null);
  switch (limit) {
    case 'connections-per-source':
      return plan.maxConnectionsPerSource;
    case 'connections-total':
      return connectionsInAll(plan, known).max;
    case 'subscriptions-per-connection':
      return plan.maxSubscriptions;
    case 'batch-size':
      return plan.maxBatch;
    case 'request-line-bytes':
      return Math.max(1, Math.floor(plan.maxRequestBytes / LINE_STEP_BYTES)) * LINE_STEP_BYTES;
    case 'history-size':
      return largest((l) => l.txCount);
    case 'utxo-count':
      return largest((l) => l.utxoCount);
    case 'response-bytes':
      return plan.maxResponseBytes;
  }
}

/** The limits whose probes are sized from a dataset's addresses: none without one. */
export const DATASET_LIMITS: readonly LimitName[] = ['history-size', 'utxo-count', 'response-bytes'];

/** Request lines are probed in steps of this many bytes. */
export const LINE_STEP_BYTES = 256;

export async function probeLimits(
  server: { host: string; port: number },
  plan: LimitsPlan,
  o: { known: ReadonlyMap<LimitName, LimitFinding>; signal: AbortSignal; found: (f: LimitFinding) => void; log: (line: string) => void },
): Promise<void> {
  const c: ProbeContext = { host: server.host, port: server.port, timeoutMs: plan.timeoutMs, maxLineBytes: plan.maxLineBytes, signal: o.signal };
  const findings = new Map(o.known);
  for (const limit of plan.limits) {
    if (o.signal.aborted) return;
    if (findings.has(limit)) continue;
    const deadline = performance.now() + plan.secondsPerLimit * 1000;
    const stop = () => o.signal.aborted || performance.now() > deadline;
    o.log(`probing ${limit}`);
    const finding = await probeOne(limit, c, plan, findings, stop, server.host);
    // A probe cut short by a stop found nothing a rerun should skip.
    if (finding === null || o.signal.aborted) continue;
    findings.set(limit, finding);
    o.found(finding);
  }
}

async function probeOne(limit: LimitName, c: ProbeContext, plan: LimitsPlan, known: ReadonlyMap<LimitName, LimitFinding>, stop: () => boolean, host: string): Promise<LimitFinding | null> {
  const sources = plan.sourceAddresses.length ? [...plan.sourceAddresses] : [undefined];
  const first = sources[0];
  const fromNote = first === undefined ? (isLoopbackHost(host) ? 'from 127.0.0.1' : 'from the default route') : `from ${first}`;
  const measured = (f: Omit<LimitFinding, 'source' | 'limit'>): LimitFinding => ({ limit, source: 'measured', ...f });
  switch (limit) {
    case 'connections-per-source': {
      const h = await holdConnections(c, { sources: [first], max: plan.maxConnectionsPerSource, perSource: plan.maxConnectionsPerSource, recoveryWithinMs: plan.recoveryWithinMs, stop });
      // Fulcrum's subnets_to_exclude_from_per_ip_limits exempts 127.0.0.1 by default (lab notes, 2026-11-27).
      const exempt = first === undefined || first === '127.0.0.1' ? '; 127.0.0.1 may be exempt from per-IP limits (Fulcrum exempts it by default)' : '';
      return measured({ value: h.past ? h.served : null, triedUpTo: h.tried, past: h.past, recoveryMs: h.recoveryMs, note: `${fromNote}${exempt}${h.cutShort ? '; cut short' : ''}` });
    }
    case 'connections-total': {
      // From one source without a per-source limit found, a per-source limit reads as this one (the note says so).
      const { perSource, foundPerSource, max } = connectionsInAll(plan, known);
      const h = await holdConnections(c, { sources, max, perSource, recoveryWithinMs: plan.recoveryWithinMs, stop });
      const spread = sources.length > 1 ? `over ${sources.length} source addresses, at most ${perSource} each` : `${fromNote}${foundPerSource === null ? ' (one source: a per-source limit would read as this one)' : ''}`;
      return measured({ value: h.past ? h.served : null, triedUpTo: h.tried, past: h.past, recoveryMs: h.recoveryMs, note: `${spread}${h.cutShort ? '; cut short' : ''}` });
    }
    case 'subscriptions-per-connection': {
      const h = await holdSubscriptions(c, { from: first, max: plan.maxSubscriptions, recoveryWithinMs: plan.recoveryWithinMs, stop });
      return measured({ value: h.past ? h.served : null, triedUpTo: h.tried, past: h.past, recoveryMs: h.recoveryMs, note: `scripthashes with no history, ${fromNote}${h.cutShort ? '; cut short' : ''}` });
    }
    case 'batch-size':
      return searched(c, first, plan, stop, { steps: plan.maxBatch, amount: (s) => s + 1, probe: (s) => probeBatch(c, first, s + 1), note: 'server.ping requests in one array' }, limit);
    case 'request-line-bytes': {
      const steps = Math.max(1, Math.floor(plan.maxRequestBytes / LINE_STEP_BYTES));
      const amount = (s: number) => (s + 1) * LINE_STEP_BYTES;
      return searched(c, first, plan, stop, { steps, amount, probe: (s) => probeLineBytes(c, first, amount(s)), note: `a server.ping line padded with spaces, in steps of ${LINE_STEP_BYTES} bytes` }, limit);
    }
    case 'history-size':
    case 'utxo-count':
      return sizes(c, first, plan, stop, limit === 'history-size' ? 'history' : 'utxos');
    case 'response-bytes':
      return responseBytes(c, first, plan, known, stop);
  }
}

interface Scale {
  steps: number;
  amount: (step: number) => number;
  probe: (step: number) => Promise<ProbeResult>;
  note: string;
}

/**
 * A search over a scale, waiting after each failure until the server serves normally again (the
 * first wait is the finding's recovery); a server that does not ends the search.
 */
async function searched(c: ProbeContext, from: string | undefined, plan: LimitsPlan, stop: () => boolean, scale: Scale, limit: LimitName): Promise<LimitFinding | null> {
  let recovery: number | null | undefined;
  let gone = false;
  const r = await searchLimit(
    async (step) => {
      const out = await scale.probe(step);
      if (!out.ok && !c.signal.aborted) {
        const ms = await recoveryMs(c, from, plan.recoveryWithinMs);
        recovery ??= ms;
        if (ms === null) gone = true;
      }
      return out;
    },
    { steps: scale.steps, maxProbes: plan.maxProbes, stop: () => gone || stop() },
  );
  if (r.probes === 0) return null;
  const unsettled = r.cutShort || gone;
  const between = unsettled && r.failedStep !== null ? `; between ${r.servedStep === null ? 0 : scale.amount(r.servedStep)} and ${scale.amount(r.failedStep)} (cut short)` : unsettled ? '; cut short' : '';
  const notServing = gone ? `; not serving again within ${Math.round(plan.recoveryWithinMs / 1000)} s` : '';
  return {
    limit,
    source: 'measured',
    value: r.failedStep === null ? null : r.servedStep === null ? 0 : scale.amount(r.servedStep),
    triedUpTo: scale.amount(r.triedStep),
    past: r.past as PastLimit | null,
    recoveryMs: recovery ?? null,
    note: `${scale.note}${between}${notServing}`,
  };
}

async function sizes(c: ProbeContext, from: string | undefined, plan: LimitsPlan, stop: () => boolean, kind: SizeKind): Promise<LimitFinding | null> {
  const limit: LimitName = kind === 'history' ? 'history-size' : 'utxo-count';
  const lines = addressesBySize(plan.dataset ?? [], kind);
  if (lines.length === 0) return null;
  const what = kind === 'history' ? 'get_history' : 'listunspent';
  return searched(c, from, plan, stop, { steps: lines.length, amount: (s) => sizeOf(lines[s], kind), probe: (s) => probeSize(c, from, lines[s], kind), note: `${what} of the dataset's addresses (${lines.length} sizes)` }, limit);
}

/** The history's bytes in its reply line: the JSON of one entry is about this long (a tx hash and a height). */
const ENTRY_BYTES = 90;

async function responseBytes(c: ProbeContext, from: string | undefined, plan: LimitsPlan, known: ReadonlyMap<LimitName, LimitFinding>, stop: () => boolean): Promise<LimitFinding | null> {
  const servedHistory = known.get('history-size')?.value ?? Infinity;
  const line = addressesBySize(plan.dataset ?? [], 'history').filter((l) => l.txCount <= servedHistory).pop();
  if (!line) return null;
  const maxBatch = known.get('batch-size')?.value ?? plan.maxBatch;
  // Large replies are asked for as a batch of copies: a server that answers no batch is not probed.
  if (maxBatch === 0) return { limit: 'response-bytes', source: 'measured', value: null, triedUpTo: 0, past: null, recoveryMs: null, note: 'not probed: the server answers no batch (array), through which this probe asks for large replies' };
  const copies = Math.max(1, Math.min(maxBatch, Math.ceil(plan.maxResponseBytes / (line.txCount * ENTRY_BYTES))));
  const bytesAt = new Map<number, number>();
  return searched(
    c,
    from,
    plan,
    stop,
    {
      steps: copies,
      amount: (s) => bytesAt.get(s) ?? (s + 1) * line.txCount * ENTRY_BYTES,
      probe: async (s) => {
        const out = await probeResponseBytes(c, from, line.scripthash, s + 1);
        if (out.ok && out.bytes !== undefined) bytesAt.set(s, out.bytes);
        return out;
      },
      note: `a batch of copies of a ${line.txCount}-entry history (at most ${copies}), bytes of its reply line`,
    },
    'response-bytes',
  );
}
