/**
 * Every option of `dataset build|filter|stats`, validated and completed in one step before any
 * connection is made or file written, so a run never starts on bad options. Raw values arrive
 * as strings (yargs parses "abc" to NaN, which would make for a worse message).
 */
import path from 'node:path';
import { readCa } from '../core/ca-file';
import { UserError } from '../core/user-error';
import { claimInput, claimOutputFile, makeDirs } from '../core/output-path';
import { MAX_TIMER_MS } from '../core/timer-limit';
import { formatServerUrl, HTTP_SCHEMES, parseServerAddress } from '../core/server-address';
import { ADDRESS_TYPES, AddressType } from './line';
import { NETWORK_NAMES, NetworkName } from '../electrum/scripthash';
import { PROFILE_NAMES, ProfileName } from '../servers/profiles';
import { BUCKET_SCHEMES, BucketScheme } from './buckets';

export const ENV_RPC_USER = 'ELECTRUM_BENCH_RPC_USER';
export const ENV_RPC_PASSWORD = 'ELECTRUM_BENCH_RPC_PASSWORD';

export const DEFAULTS = {
  minTxs: 1,
  buckets: 'log10' as BucketScheme,
  seed: '1',
  network: 'auto' as const,
  countProfile: 'auto' as const,
  countConnections: 4,
  countTimeoutSec: 60,
  // A few requests in flight keep the node busy while we parse the previous reply.
  scanConcurrency: 3,
};

export interface RpcTarget {
  url: string;
  user?: string;
  password?: string;
  cookieFile?: string;
}

export interface ElectrumTarget {
  host: string;
  port: number;
  tls: boolean;
  websocket?: boolean;
  tlsInsecure: boolean;
  /** --ca: extra CA certificates to trust (PEM), read before any connection. */
  ca?: Buffer;
  label: string; // electrum://host:port (ws:// over WebSocket), for messages and the manifest
}

/** What decides which counted candidates become dataset lines. */
export interface Selection {
  minTxs: number;
  maxTxs: number | null;
  types: AddressType[] | null;
  buckets: BucketScheme;
  perBucket: number | null;
  seed: string;
}

export interface OutputPaths {
  dataset: string;
  manifest: string;
  checkpoint: string;
}

export interface BuildOptions {
  rpc: RpcTarget;
  from: number;
  to: number;
  countVia: ElectrumTarget;
  countProfile: ProfileName | 'auto';
  countConnections: number;
  countTimeoutMs: number;
  scanConcurrency: number;
  network: NetworkName | 'auto';
  selection: Selection;
  out: OutputPaths;
  force: boolean;
}

export interface FilterOptions {
  input: string;
  inputManifest: string;
  selection: Selection;
  out: OutputPaths;
  force: boolean;
}

export interface StatsOptions {
  input: string;
  buckets: BucketScheme;
  json: boolean;
}

type Raw = Record<string, unknown>;

export function buildOptions(raw: Raw, env: NodeJS.ProcessEnv = process.env): BuildOptions {
  const from = integer(raw, 'from', { min: 0, required: true })!;
  const to = integer(raw, 'to', { min: 0, required: true })!;
  if (from > to) throw new UserError(`--from ${from} is above --to ${to}`);
  return {
    rpc: rpcTarget(raw, env),
    from,
    to,
    ...countViaOptions(raw),
    scanConcurrency: integer(raw, 'scan-concurrency', { min: 1, max: 16 }) ?? DEFAULTS.scanConcurrency,
    network: oneOf(raw, 'network', ['auto', ...NETWORK_NAMES], DEFAULTS.network),
    selection: selection(raw),
    out: outputPaths(str(raw, 'out', true)!),
    force: raw.force === true,
  };
}

/** The Electrum server a dataset is counted through, as `build` and `addresses` both take it. */
export interface CountViaOptions {
  countVia: ElectrumTarget;
  countProfile: ProfileName | 'auto';
  countConnections: number;
  countTimeoutMs: number;
}

function countViaOptions(raw: Raw): CountViaOptions {
  return {
    countVia: { ...electrumTarget(str(raw, 'count-via', true)!, raw['tls-insecure'] === true), ...(str(raw, 'ca') !== undefined ? { ca: readCa(str(raw, 'ca')!) } : {}) },
    countProfile: oneOf(raw, 'count-profile', ['auto', ...PROFILE_NAMES], DEFAULTS.countProfile),
    countConnections: integer(raw, 'count-connections', { min: 1, max: 64 }) ?? DEFAULTS.countConnections,
    countTimeoutMs: (integer(raw, 'count-timeout', { min: 1, max: Math.floor(MAX_TIMER_MS / 1000) }) ?? DEFAULTS.countTimeoutSec) * 1000,
  };
}

export interface AddressesCliOptions extends CountViaOptions {
  positional: string[];
  input: string | undefined;
  out: OutputPaths;
  force: boolean;
}

export function addressesOptions(raw: Raw): AddressesCliOptions {
  const input = str(raw, 'in');
  if (input !== undefined) claimInput(input, '--in');
  return {
    positional: ((raw.address as unknown[] | undefined) ?? []).map(String),
    input,
    ...countViaOptions(raw),
    out: outputPaths(str(raw, 'out', true)!),
    force: raw.force === true,
  };
}

export function filterOptions(raw: Raw): FilterOptions {
  const input = str(raw, 'in', true)!;
  const out = outputPaths(str(raw, 'out', true)!);
  // The dataset and its manifest read are not to be written over (--out is claimed against them).
  claimInput(input, '--in');
  claimInput(manifestPathOf(input), '--in (its manifest)');
  return { input, inputManifest: manifestPathOf(input), selection: selection(raw), out, force: raw.force === true };
}

export function statsOptions(raw: Raw): StatsOptions {
  return {
    input: str(raw, 'in', true)!,
    buckets: oneOf(raw, 'buckets', BUCKET_SCHEMES, DEFAULTS.buckets),
    json: raw.json === true,
  };
}

export function manifestPathOf(datasetPath: string): string {
  return datasetPath.replace(/\.jsonl$/, '') + '.manifest.json';
}

/**
 * Makes sure the outputs can be written before any work starts, and an existing dataset is only
 * replaced when asked to. A directory the claim makes and the command leaves empty is removed
 * when it ends.
 */
export function prepareOutput(out: OutputPaths, force: boolean): void {
  claimOutputFile(out.dataset, '--out', { replace: false, force });
}

/** Creates the directory prepareOutput checked, right before the first file goes into it. */
export function createOutputDir(out: OutputPaths): void {
  const dir = path.dirname(path.resolve(out.dataset));
  try {
    makeDirs(dir);
  } catch (err) {
    throw new UserError(`--out: cannot write to ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function selection(raw: Raw): Selection {
  const minTxs = integer(raw, 'min-txs', { min: 1 }) ?? DEFAULTS.minTxs;
  const maxTxs = integer(raw, 'max-txs', { min: 1 });
  if (maxTxs !== undefined && maxTxs < minTxs) throw new UserError(`--max-txs ${maxTxs} is below --min-txs ${minTxs}`);
  return {
    minTxs,
    maxTxs: maxTxs ?? null,
    types: addressTypes(raw),
    buckets: oneOf(raw, 'buckets', BUCKET_SCHEMES, DEFAULTS.buckets),
    perBucket: integer(raw, 'per-bucket', { min: 1 }) ?? null,
    seed: str(raw, 'seed') ?? DEFAULTS.seed,
  };
}

function addressTypes(raw: Raw): AddressType[] | null {
  const v = raw.types;
  if (v === undefined) return null;
  const items = (Array.isArray(v) ? v : [v]).flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new UserError(`--types: expected a comma-separated list of ${ADDRESS_TYPES.join(', ')}`);
  for (const t of items) {
    if (!(ADDRESS_TYPES as readonly string[]).includes(t)) {
      throw new UserError(`--types: unknown type ${JSON.stringify(t)} (expected ${ADDRESS_TYPES.join(', ')})`);
    }
  }
  return [...new Set(items)].sort() as AddressType[];
}

function rpcTarget(raw: Raw, env: NodeJS.ProcessEnv): RpcTarget {
  const url = str(raw, 'rpc', true)!;
  const cookieFile = str(raw, 'rpc-cookie');
  const flagUser = str(raw, 'rpc-user');
  const flagPassword = str(raw, 'rpc-password');
  if (cookieFile && (flagUser !== undefined || flagPassword !== undefined)) {
    throw new UserError('give either --rpc-cookie or --rpc-user/--rpc-password, not both');
  }
  if (cookieFile) return { url, cookieFile }; // an explicit cookie beats credentials left in the environment
  const user = flagUser ?? env[ENV_RPC_USER];
  const password = flagPassword ?? env[ENV_RPC_PASSWORD];
  return { url, ...(user !== undefined ? { user } : {}), ...(password !== undefined ? { password } : {}) };
}

/** electrum://host:port (plain TCP) or electrums://host:port (TLS); tcp://, ssl://, ws:// and wss:// are accepted too. */
export function electrumTarget(text: string, tlsInsecure: boolean): ElectrumTarget {
  const what = `--count-via ${JSON.stringify(text)}`;
  const a = parseServerAddress(text, what, { requireScheme: true });
  if (a.scheme !== undefined && HTTP_SCHEMES.includes(a.scheme)) throw new UserError(`${what}: counts are asked over the Electrum protocol, not ${a.scheme}://`);
  if (a.websocket && a.port === undefined) throw new UserError(`${what}: ${a.scheme}:// needs a port (servers have no customary WebSocket port)`);
  // Electrum's customary ports: no profile is known before the server has answered.
  const address = { host: a.host, port: a.port ?? (a.tls ? 50002 : 50001), tls: a.tls, ...(a.websocket ? { websocket: true } : {}) };
  return { ...address, tlsInsecure, label: formatServerUrl(address) };
}

function outputPaths(out: string): OutputPaths {
  if (!out.endsWith('.jsonl')) throw new UserError(`--out must name a .jsonl file, got ${JSON.stringify(out)}`);
  return { dataset: out, manifest: manifestPathOf(out), checkpoint: `${out}.checkpoint` };
}

function str(raw: Raw, name: string, required = false): string | undefined {
  const v = raw[name];
  if (v === undefined || v === null) {
    if (required) throw new UserError(`--${name} is required`);
    return undefined;
  }
  if (Array.isArray(v)) throw new UserError(`--${name} given more than once`);
  const s = String(v);
  if (required && s === '') throw new UserError(`--${name} must not be empty`);
  return s;
}

function integer(raw: Raw, name: string, o: { min: number; max?: number; required?: boolean }): number | undefined {
  const s = str(raw, name, o.required);
  if (s === undefined) return undefined;
  const n = /^\d+$/.test(s.trim()) ? Number(s) : NaN;
  if (!Number.isSafeInteger(n) || n < o.min || (o.max !== undefined && n > o.max)) {
    const range = o.max !== undefined ? `an integer in ${o.min}..${o.max}` : `an integer >= ${o.min}`;
    throw new UserError(`--${name} must be ${range}, got ${JSON.stringify(s)}`);
  }
  return n;
}

function oneOf<T extends string>(raw: Raw, name: string, allowed: readonly T[], fallback: T): T {
  const s = str(raw, name);
  if (s === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(s)) throw new UserError(`--${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(s)}`);
  return s as T;
}
