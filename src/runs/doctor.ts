/**
 * The pre-flight doctor of `load`, `load --workload` and `bench --workload`: before any traffic,
 * what the planned run asks of each server at once (connections per source address and in all,
 * subscriptions on one connection, calls in one batch, the largest history and UTXO set) against
 * the limits known of that server, one line per limit the plan will cross, saying what to change.
 * By default the lines are warnings and the run goes on; with --strict-limits they refuse it
 * (exit 2), before any connection and with nothing written. docs/doctor.md.
 *
 * The limits come from anywhere, as findings per target (`ServerLimits`): a profile's defaults
 * (src/servers/known-limits.ts), a lab server's configuration, a stored `limits` run. For each
 * limit a measured finding outranks a configured one, and among findings of one source the later
 * outranks the earlier, so a list is read as "defaults, then what is known better".
 */
import type { DatasetLine } from '../core/dataset-line';
import type { Mix } from '../core/load-types';
import type { LimitFinding, LimitName, PastLimit } from '../core/server-limits';
import { UserErrorLines } from '../core/user-error';
import { isLoopbackHost } from '../core/target-safety';
import type { WalletLine } from '../core/wallet-line';
import type { WorkloadName } from '../core/wallet-scan';

/** What is known of each target's limits, by target name; a target missing knows none. */
export type ServerLimits = ReadonlyMap<string, readonly LimitFinding[]>;

/**
 * One thing the plan asks of every server at its most. `part` and `change` are given the limit's
 * value: the part of the plan over it ("3 of the dataset's addresses have more than 500
 * transactions") and what to change so it fits.
 */
export interface Demand {
  limit: LimitName;
  amount: number;
  part: (value: number) => string;
  change: (value: number) => string;
  /**
   * connections-per-source: the connections from each source address; a null source is the
   * system's choice (127.0.0.1 to a loopback server, this machine's address to another).
   */
  bySource?: ReadonlyArray<{ source: string | null; amount: number }>;
  /** The amount is an upper bound (a wallet's transactions, not one address's history): the plan may cross. */
  bound?: boolean;
}

/** A target as the doctor names it. */
export interface DoctorTarget {
  name: string;
  host: string;
}

/** The finding that rules `limit`: the last measured one, else the last configured one. */
export function rulingFinding(findings: readonly LimitFinding[], limit: LimitName): LimitFinding | undefined {
  const of = findings.filter((f) => f.limit === limit);
  return of.filter((f) => f.source === 'measured').at(-1) ?? of.at(-1);
}

/**
 * The source addresses a per-source limit spares. A measured finding knows only the value it met
 * from its own source addresses; which addresses the server spares is its configuration's to say
 * (Fulcrum's subnets_to_exclude_from_per_ip_limits spares 127.0.0.1 by default), so a measured
 * limit spares what the configured one of the same limit does.
 */
function exemptFrom(findings: readonly LimitFinding[], f: LimitFinding): readonly string[] {
  return f.exempt ?? findings.filter((o) => o.limit === f.limit && o.source !== 'measured' && o.exempt).at(-1)?.exempt ?? [];
}

/** One line per limit of `target` the demands cross (none when the plan fits what is known). */
export function diagnose(target: DoctorTarget, demands: readonly Demand[], findings: readonly LimitFinding[]): string[] {
  const lines: string[] = [];
  for (const d of demands) {
    const f = rulingFinding(findings, d.limit);
    if (!f || f.value === null) continue;
    const value = f.value;
    let part: string;
    if (d.bySource) {
      const counted = d.bySource
        .map(({ source, amount }) => ({ source: source ?? systemSource(target.host), amount }))
        .filter(({ source }) => !(source !== null && isExempt(source, exemptFrom(findings, f))));
      const most = Math.max(0, ...counted.map((c) => c.amount));
      if (most <= value) continue;
      const from = counted.filter((c) => c.amount === most).map((c) => c.source ?? "this machine's address");
      part = `${most} connections from ${from.length > 3 ? `each of ${from.length} addresses (${from.slice(0, 2).join(', ')}, …)` : from.join(' and from ')} (${d.part(value)})`;
    } else {
      if (d.amount <= value) continue;
      part = d.part(value);
    }
    const past = pastText(f.past);
    lines.push(`${target.name}: ${part} ${d.bound ? 'may cross' : 'cross'} its limit of ${limitText(d.limit, value)} (${sourceText(f)})${past ? `; past it ${past}` : ''}; ${d.change(value)}`);
  }
  return lines;
}

/**
 * The doctor's verdict on a run of `targets`: warnings logged (and returned, to be recorded with
 * the run) when the plan crosses a known limit, or, with `strict`, the run refused (one line per
 * limit crossed, exit 2) before anything connects or is written.
 */
export function preflight(targets: readonly DoctorTarget[], demands: readonly Demand[], limits: ServerLimits, strict: boolean, log: (line: string) => void): string[] {
  const lines = targets.flatMap((t) => diagnose(t, demands, limits.get(t.name) ?? []));
  if (strict && lines.length) throw new PlanOverLimits(lines);
  for (const line of lines) log(`electrum-bench: warning: ${line} (--strict-limits refuses such a run)`);
  return lines;
}

/** --strict-limits' refusal: a user's error of one line per limit the plan crosses. */
export class PlanOverLimits extends UserErrorLines {
  constructor(crossed: string[]) {
    super(crossed.map((l) => `--strict-limits: ${l}`));
  }
}

/** The source address the system picks to reach `host`: 127.0.0.1 (or ::1) for a loopback server; unknown (null) otherwise. */
function systemSource(host: string): string | null {
  if (!isLoopbackHost(host)) return null;
  // IPv6's loopback however written, but an IPv4-mapped address is reached over IPv4.
  return host.includes(':') && !/::ffff:\d/i.test(host) ? '::1' : '127.0.0.1';
}

/** Whether `address` is one of `subnets` (`127.0.0.1/32`, `10.0.0.0/8`, a single address; IPv6 by exact address). */
export function isExempt(address: string, subnets: readonly string[]): boolean {
  return subnets.some((subnet) => {
    const [base, bits] = subnet.split('/');
    const a = ipv4Number(address);
    const b = ipv4Number(base);
    if (a === null || b === null) return address === base;
    const n = bits === undefined ? 32 : Number(bits);
    if (!(Number.isInteger(n) && n >= 0 && n <= 32)) return false;
    const mask = n === 0 ? 0 : (~0 << (32 - n)) >>> 0;
    return ((a & mask) >>> 0) === ((b & mask) >>> 0);
  });
}

function ipv4Number(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function limitText(limit: LimitName, value: number): string {
  switch (limit) {
    case 'connections-per-source':
      return `${value} connections per source address`;
    case 'connections-total':
      return `${value} connections in all`;
    case 'subscriptions-per-connection':
      return `${value} subscriptions per connection`;
    case 'batch-size':
      return `${value} calls per batch`;
    case 'request-line-bytes':
      return `${value}-byte request lines`;
    case 'history-size':
      return `${value} history entries`;
    case 'utxo-count':
      return `${value} UTXOs per address`;
    case 'response-bytes':
      return `${value}-byte replies`;
  }
}

function sourceText(f: LimitFinding): string {
  if (f.source === 'measured') return f.note ? `measured by limits: ${f.note}` : 'measured by limits';
  return f.note ?? 'configured';
}

function pastText(past: PastLimit | null): string {
  if (!past) return '';
  switch (past.kind) {
    case 'error':
      return `the server answers an error${past.code === null ? '' : ` ${past.code}`} ("${past.message}")`;
    case 'empty':
      return 'the server answers as if the address were empty, with no error';
    case 'truncated':
      return 'the server answers only part';
    case 'reset':
      return 'the server closes the connection unanswered';
    case 'hang':
      return 'the server stops answering';
    case 'refused':
      return 'the server accepts no new connection';
  }
}

/** The loopback address 127.x.y.z numbered `n` (127.0.0.2 for 2), as --source-addresses takes them. */
function loopback(n: number): string {
  return `127.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** What `load` (requests) asks of each server: its connections, and the dataset's largest addresses where the mix asks them. */
export interface RequestPlanFacts {
  /** This process's connections to each server, and the whole test's (all shards'). */
  connections: number;
  testConnections: number;
  sourceAddresses: readonly string[];
  mix: Mix;
  lines: readonly DatasetLine[];
}

export function requestLoadDemands(p: RequestPlanFacts): Demand[] {
  const sources = p.sourceAddresses.length ? p.sourceAddresses : [null];
  // Connection i comes from source i mod n (src/transports/electrum-connections.ts).
  const bySource = sources.map((source, i) => ({ source, amount: Math.floor(p.connections / sources.length) + (i < p.connections % sources.length ? 1 : 0) }));
  const n = p.sourceAddresses.length;
  const given = n ? `--connections ${p.connections} over ${n} source address${n > 1 ? 'es' : ''}` : `--connections ${p.connections}`;
  const demands: Demand[] = [
    {
      limit: 'connections-per-source',
      amount: p.connections,
      bySource,
      part: () => given,
      change: (v) => {
        const needed = Math.ceil(p.connections / v);
        return `spread them over ${needed} source addresses (--source-addresses ${loopback(2)}-${loopback(needed + 1)}) or open at most ${v * sources.length} (--connections ${v * sources.length})`;
      },
    },
    {
      limit: 'connections-total',
      amount: p.testConnections,
      part: () => `${p.testConnections} connections (--connections${p.testConnections === p.connections ? '' : ', over every shard'})`,
      change: (v) => `open at most ${v} in all (--connections ${v})`,
    },
  ];
  const weight = (m: keyof Mix) => (p.mix[m] ?? 0) > 0;
  if (weight('history')) demands.push(sizeDemand('history-size', p.lines, (l) => l.txCount, 'transactions', 'history', (v) => `leave them out (npm run dataset -- filter --max-txs ${v}) or drop history from --mix`));
  if (weight('utxos')) demands.push(sizeDemand('utxo-count', p.lines, (l) => l.utxoCount, 'UTXOs', 'utxos', () => 'leave them out of the dataset or drop utxos from --mix'));
  return demands;
}

function sizeDemand(limit: LimitName, lines: readonly DatasetLine[], size: (l: DatasetLine) => number, unit: string, method: string, change: (v: number) => string): Demand {
  const amount = Math.max(0, ...lines.map(size));
  return {
    limit,
    amount,
    part: (v) => {
      const over = lines.filter((l) => size(l) > v).length;
      return `${over} of the dataset's addresses, asked for their ${method} by --mix, have more than ${v} ${unit} (the largest ${amount})`;
    },
    change,
  };
}

/** What whole wallets ask of each server: a connection each, its subscriptions, its batches, its histories. */
export interface WalletPlanFacts {
  workload: { name: WorkloadName; largestBatch: number };
  wallets: readonly WalletLine[];
  /** The most wallets connected at once (held, and arriving closed-model users), this process's; 0 leaves connections out. */
  connections: number;
  /** The option that sets them, e.g. "--hold 30". */
  connectionsFrom: string;
}

export function walletDemands(p: WalletPlanFacts): Demand[] {
  const demands: Demand[] = [];
  if (p.connections > 0) {
    const part = () => `one per wallet, ${p.connectionsFrom}`;
    const change = (v: number) => `connect at most ${v} wallets at once (now ${p.connectionsFrom}), or split the test into shards on machines of their own (--shard, --coordinator)`;
    demands.push({ limit: 'connections-per-source', amount: p.connections, bySource: [{ source: null, amount: p.connections }], part, change });
    demands.push({ limit: 'connections-total', amount: p.connections, part: () => `${p.connections} wallet connections (${p.connectionsFrom})`, change });
  }
  const largest = (of: (w: WalletLine) => number): { wallet: WalletLine | undefined; amount: number } =>
    p.wallets.reduce<{ wallet: WalletLine | undefined; amount: number }>((best, w) => (of(w) > best.amount ? { wallet: w, amount: of(w) } : best), { wallet: undefined, amount: 0 });
  const overCount = (of: (w: WalletLine) => number, v: number) => p.wallets.filter((w) => of(w) > v).length;
  const subscriptions = (w: WalletLine) => w.expected.fullSync[p.workload.name]?.['blockchain.scripthash.subscribe'] ?? 0;
  const subs = largest(subscriptions);
  if (subs.wallet) {
    demands.push({
      limit: 'subscriptions-per-connection',
      amount: subs.amount,
      part: (v) => {
        const n = overCount(subscriptions, v);
        return `${n === 1 ? '1 wallet subscribes' : `${n} wallets subscribe`} more than ${v} scripts on one connection (the largest, ${subs.wallet!.wallet}, ${subs.amount})`;
      },
      change: () => 'leave the larger wallets out (--wallet-max-txs) or use wallets of fewer scripts',
    });
  }
  if (p.workload.largestBatch > 1) {
    demands.push({
      limit: 'batch-size',
      amount: p.workload.largestBatch,
      part: () => `the ${p.workload.name} workload's JSON batches of up to ${p.workload.largestBatch} calls`,
      change: () => 'use the electrum or bdk workload (they send no JSON batches)',
    });
  }
  // A wallet's transactions bound the history of each of its scripts: so many may be in one.
  const txs = largest((w) => w.expected.txCount);
  if (txs.wallet) {
    demands.push({
      limit: 'history-size',
      amount: txs.amount,
      bound: true,
      part: (v) => {
        const n = overCount((w) => w.expected.txCount, v);
        return `${n} wallet${n === 1 ? '' : 's'} of more than ${v} transactions (the largest, ${txs.wallet!.wallet}, ${txs.amount})`;
      },
      change: (v) => `leave them out (--wallet-max-txs ${v})`,
    });
  }
  return demands;
}
