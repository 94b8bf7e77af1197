/**
 * What makes shards one test: the options that define it, by flag, as the whole test's values
 * (`--rate 40` is the test's rate, whatever share of it a shard sends), with the servers as
 * resolved and the input file by its content's digest rather than its path. The options a shard may
 * set for itself (where it writes, which CPUs, where its files are) are left out. Compared when the
 * shards of a coordinated test meet, stored with each shard's run, and compared again by the merge,
 * which refuses a shard of another test in the same words.
 */
import crypto from 'node:crypto';
import { formatShard, type Shard } from '../core/shard';
import { targetUrl, type ServerTarget } from '../servers/targets';
import type { TestTag } from '../engine/coordinator';

export type TestKind = 'request' | 'wallet';

export interface TestIdentity {
  /** A request load, or a wallet load (`--workload`). */
  kind: TestKind;
  /** Each option that defines the test, by its flag, with its value; `servers` and the input file's digest once known. */
  options: Record<string, unknown>;
  /** Equal for the shards of one test. */
  hash: string;
}

/** Options each shard may set for itself: everything else must be the same. */
const PER_SHARD = new Set([
  ...['db', 'shard', 'start-at', 'source-addresses', 'cpu', 'realtime', 'progress', 'json', 'summary-export', 'ready-timeout', '_', '$0'],
  // What watches a shard is its own.
  ...['out', 'dashboard', 'dashboard-export'],
  // Paths differ from machine to machine: the input file is compared by its content instead.
  ...['dataset', 'wallets', 'ca', 'config', 'rpc-cookie'],
  // What each machine samples of a server's cost is its own (src/cli/resource-targets.ts).
  ...['server-pid', 'server-pidfile', 'server-datadir', 'metrics', 'sample-every'],
]);

/** The key a file's digest is stored under, per kind: the option that names the file. */
const INPUT: Record<TestKind, string> = { request: 'dataset', wallet: 'wallets' };

const kebab = (k: string): string => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * The identity from the parsed options alone (yargs' parse of `load`): what shards compare when
 * they meet, before any file is read or server resolved.
 */
export function optionsIdentity(parsed: object): TestIdentity {
  const all = parsed as Record<string, unknown>;
  const kind: TestKind = typeof all.workload === 'string' ? 'wallet' : 'request';
  const options: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(all)) {
    // yargs gives each dashed option twice: as typed and camel-cased.
    if (v === undefined || PER_SHARD.has(k) || PER_SHARD.has(kebab(k)) || (kebab(k) !== k && kebab(k) in all)) continue;
    options[k] = Array.isArray(v) ? v.map(withoutCredentials) : withoutCredentials(v);
  }
  return identityOf(kind, options);
}

/**
 * The identity stored with a shard's run: its options, the servers it measured (name, profile,
 * URL) and the sha256 of its dataset or wallets file.
 */
export function testIdentity(parsed: object, servers: readonly ServerTarget[], inputSha256: string): TestIdentity {
  const { kind, options } = optionsIdentity(parsed);
  return identityOf(kind, {
    ...options,
    servers: servers.map((t) => ({ name: t.name, profile: t.profile, url: targetUrl(t) })),
    [INPUT[kind]]: `sha256:${inputSha256}`,
  });
}

/** A URL's user and password (`--mine-via http://user:pass@node`) are no part of a test, and are stored nowhere. */
function withoutCredentials(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1') : value;
}

function identityOf(kind: TestKind, options: Record<string, unknown>): TestIdentity {
  const plain = JSON.parse(JSON.stringify(sorted(options))) as Record<string, unknown>;
  const hash = crypto.createHash('sha256').update(JSON.stringify([kind, plain])).digest('hex').slice(0, 16);
  return { kind, options: plain, hash };
}

const sorted = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The identity a run's stored config holds; undefined for a run stored before identities (or not a shard). */
export function storedIdentity(config: unknown): TestIdentity | undefined {
  const t = (config as { test?: Partial<TestIdentity> } | null)?.test;
  if (typeof t !== 'object' || t === null) return undefined;
  if ((t.kind !== 'request' && t.kind !== 'wallet') || typeof t.hash !== 'string' || typeof t.options !== 'object' || t.options === null) return undefined;
  return { kind: t.kind, options: t.options, hash: t.hash };
}

/**
 * Why `theirs` is not the test `ours` is, naming the first option that differs with both values
 * (`b.sqlite ran --rate 40, a.sqlite --rate 20: shards of different tests`); undefined when they
 * are one test. The coordinator says it when a shard registers ("runs"), the merge when it reads
 * the shards ("ran").
 */
export function differentTests(them: string, theirs: TestIdentity, us: string, ours: TestIdentity, verb: 'ran' | 'runs' = 'ran'): string | undefined {
  if (theirs.hash === ours.hash) return undefined;
  if (theirs.kind !== ours.kind) {
    const what = (k: TestKind) => (k === 'wallet' ? 'a wallet load (--workload)' : 'a request load');
    return `${them} ${verb} ${what(theirs.kind)}, ${us} ${what(ours.kind)}: shards of different tests`;
  }
  const keys = [...new Set([...Object.keys(ours.options), ...Object.keys(theirs.options)])].sort();
  const differing = keys.filter((k) => JSON.stringify(ours.options[k]) !== JSON.stringify(theirs.options[k]));
  if (differing.length === 0) return `${them} ${verb} a test whose identity is ${theirs.hash}, ${us} ${ours.hash}: shards of different tests`;
  const [first, ...more] = differing;
  const also = more.length ? ` (and ${more.map(label).join(', ')} ${more.length > 1 ? 'differ' : 'differs'} too)` : '';
  return `${them} ${verb} ${valueText(first, theirs.options[first])}, ${us} ${valueText(first, ours.options[first])}${also}: shards of different tests`;
}

const label = (key: string): string => (key === 'servers' ? 'the servers' : `--${key}`);

/** An option as a command line gives it: `--rate 40`, `--notify`, `--no-notify`, `without --rate`. */
function valueText(key: string, value: unknown): string {
  if (value === undefined) return `without ${label(key)}`;
  if (key === 'servers' && Array.isArray(value)) {
    const one = (s: { name?: unknown; profile?: unknown; url?: unknown }) => `${String(s.name)} (${String(s.profile)} at ${String(s.url)})`;
    return `servers ${value.map(one).join(', ') || 'none'}`;
  }
  if (Object.values(INPUT).includes(key)) return `--${key} with content ${String(value).slice(0, 'sha256:'.length + 12)}…`;
  if (value === true) return `--${key}`;
  if (value === false) return `--no-${key}`;
  const word = (v: unknown) => {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    return /[\s,"]/.test(text) || text === '' ? JSON.stringify(text) : text;
  };
  if (Array.isArray(value)) return value.length ? value.map((v) => `--${key} ${word(v)}`).join(' ') : `no --${key}`;
  return `--${key} ${word(value)}`;
}

/**
 * What a shard of a coordinated test says of its test when it registers, and how the coordinator
 * words a shard of another test: the identity of the parsed options, the one the merge compares
 * again with the servers and the input file's digest.
 */
export function meetingTag(parsed: object, shard: Shard): TestTag {
  const ours = optionsIdentity(parsed);
  return {
    id: ours.hash,
    identity: ours,
    differs: (theirShard, theirs) => {
      const identity = storedIdentity({ test: theirs });
      return identity && differentTests(`shard ${theirShard}`, identity, `the coordinator (shard ${formatShard(shard)})`, ours, 'runs');
    },
  };
}
