/**
 * One merge for the shards of a test, request load or wallet load (each shard run with
 * `--shard I/N` on its own process or machine, into its own results database): the shards are put
 * back into one run, as if one generator had run the whole test. Before anything is written it
 * refuses, by name, what is not one whole test: a file that holds no shard, a mix of request and
 * wallet shards, shards of tests of another size or with other options (src/runs/test-identity.ts),
 * a repeated shard, a missing one. The merged run's status is the worst of its shards'
 * (src/core/run-status.ts), and it is written in one transaction: it appears whole or not at all.
 * What each kind adds up is its own part: src/load/merge.ts, src/wallet/merge.ts.
 */
import { claimInput } from '../core/output-path';
import { fileAboutToBeCreated } from '../core/created-file';
import { claimDatabase } from '../store/ownership';
import { exitCodeOf } from './exit-code';
import fs from 'node:fs';
import path from 'node:path';
import { toolInfo } from '../core/tool-info';
import { UserError } from '../core/user-error';
import { worstStatus, type FinalStatus } from '../core/run-status';
import { formatShard, parseShard } from '../core/shard';
import { ResultsStore } from '../store/results';
import { writeResults } from '../store/write-results';
import { LoadStore } from '../store/load-results';
import { requestRuns, requestShard, requestShardsDiffer, writeRequestMerge, type RequestShard } from '../load/merge';
import type { ThresholdResult } from '../load/thresholds';
import { walletRuns, walletShard, walletShardsDiffer, walletShardText, writeWalletMerge, type WalletShard } from '../wallet/merge';
import type { ServerLoadSummary } from '../wallet/load';
import { differentTests, storedIdentity, type TestIdentity, type TestKind } from './test-identity';

export interface MergeOptions {
  /** One run number per input, in the same order; default: each file's latest load or wallet load run. */
  runIds?: number[];
  /** k6-style thresholds judged on the merged run (the whole test), stored with it; request shards only. */
  thresholds?: string[];
  /** More to record in the merged run's config (e.g. a coordinated test's start skew). */
  config?: Record<string, unknown>;
  /** Told what the merge could not check as it checks today's shards (shards stored before test identities). */
  onNote?: (note: string) => void;
}

interface Merged {
  runId: number;
  output: string;
  shards: Array<{ file: string; runId: number; shard: string }>;
  status: FinalStatus;
}

export interface RequestMergeResult extends Merged {
  servers: string[];
  /** Merged intervals written, over all servers. */
  intervals: number;
  /** The thresholds' verdicts on the merged run (empty without MergeOptions.thresholds). */
  thresholds: ThresholdResult[];
}

export interface WalletMergeResult extends Merged {
  summaries: ServerLoadSummary[];
  setups: Record<string, unknown>;
}

export type MergeResult = RequestMergeResult | WalletMergeResult;

export const isWalletMerge = (m: MergeResult): m is WalletMergeResult => 'summaries' in m;

/** A shard as the merge holds it: its kind's details, and the test it says it belongs to. */
type Input = ({ kind: 'request' } & RequestShard) | ({ kind: 'wallet' } & WalletShard);
type Opened = Input & { results: ResultsStore; identity: TestIdentity | undefined };

/** The shards of one request load test, merged into `output`. */
export function mergeRequestShards(inputs: string[], output: string, opts: MergeOptions = {}): RequestMergeResult {
  return merge(inputs, output, opts, 'request') as RequestMergeResult;
}

/** The shards of one coordinated wallet load, merged into `output`. */
export function mergeWalletShards(inputs: string[], output: string, opts: MergeOptions = {}): WalletMergeResult {
  return merge(inputs, output, opts, 'wallet') as WalletMergeResult;
}

/** The shards of one test, of either kind (`load merge`), merged into `output`. */
export function mergeShards(inputs: string[], output: string, opts: MergeOptions = {}): MergeResult {
  return merge(inputs, output, opts);
}

function merge(inputs: string[], output: string, opts: MergeOptions, kind?: TestKind): MergeResult {
  if (inputs.length === 0) throw new UserError('merge: no input: give the result databases of the shards');
  if (opts.runIds && opts.runIds.length !== inputs.length) {
    throw new UserError(`merge: --run: one run id per input file (${inputs.length}), got ${opts.runIds.length}`);
  }
  const outputPath = path.resolve(output);
  for (const file of inputs) {
    if (path.resolve(file) === outputPath) throw new UserError(`merge: ${file} is both an input and the output; write the merge to a new database`);
  }
  const opened: Opened[] = [];
  try {
    inputs.forEach((file, i) => opened.push(openInput(file, opts.runIds?.[i])));
    const notes = checkOneTest(opened, kind);
    if (opened[0].kind === 'wallet' && opts.thresholds?.length) throw new UserError('merge: --threshold judges request loads; these are the shards of a wallet load');
    const byShard = [...opened].sort((a, b) => a.shard.index - b.shard.index);
    const result = write(byShard, output, opts, notes);
    for (const note of notes) opts.onNote?.(note);
    return result;
  } finally {
    for (const input of opened) input.results.close();
  }
}

function openInput(file: string, runNumber: number | undefined): Opened {
  if (!fs.existsSync(file)) throw new UserError(`merge: ${file}: no such file`);
  let results: ResultsStore;
  try {
    results = ResultsStore.open(file, { readonly: true });
  } catch {
    throw new UserError(`merge: ${file} is not an electrum-bench results database`);
  }
  try {
    const input = shardOf(file, results, runNumber);
    return { ...input, results, identity: storedIdentity(parseOr(input.run.config_json)) };
  } catch (err) {
    results.close();
    throw err;
  }
}

/** The run asked for (by its number) or the latest load or wallet load run of `file`, read as a shard. */
function shardOf(file: string, results: ResultsStore, runNumber: number | undefined): Input {
  const requests = requestRuns(results);
  const wallets = walletRuns(results);
  const byNumber = <R extends { id: number; legacy_id: number | null }>(runs: R[]) => runs.find((r) => r.id === runNumber) ?? runs.find((r) => r.legacy_id === runNumber);
  const request = runNumber === undefined ? requests.at(-1) : byNumber(requests);
  const wallet = runNumber === undefined ? wallets.at(-1) : byNumber(wallets);
  if (!request && !wallet) throw new UserError(`merge: ${file} has no load run${runNumber === undefined ? '' : ` ${runNumber}`}`);
  const notShard = (what: string, number: number) => new UserError(`merge: ${file}: ${what} ${number} is not a shard (it ran without --shard I/N); only the shards of one test merge`);
  // The later of the two when neither was asked for by number; the request load's when both have it.
  if (request && (runNumber !== undefined || !wallet || request.id > wallet.id)) {
    if (request.shard === null) throw notShard('load run', request.number);
    return { kind: 'request', ...requestShard(file, results, request, parseShard(request.shard, `merge: ${file}: load run ${request.number}: shard`)) };
  }
  const text = walletShardText(wallet!);
  if (text === null) throw notShard('wallet load run', wallet!.number);
  return { kind: 'wallet', ...walletShard(file, results, wallet!, parseShard(text, `merge: ${file}: wallet load run ${wallet!.number}: shard`)) };
}

const where = (i: Opened): string => `${i.file} (shard ${formatShard(i.shard)}, run ${i.run.number})`;
const shardWords = (k: TestKind): string => (k === 'wallet' ? "a wallet load's shard (load --workload)" : "a request load's shard");

/**
 * N shards of one kind, each I from 1 to N exactly once, of one test: the same model (or workload)
 * and servers, and the same identity; shards stored before identities are compared as they were
 * then, by the model and servers alone. Returns what could not be checked as fully, to be said.
 */
function checkOneTest(inputs: Opened[], kind: TestKind | undefined): string[] {
  const [first] = inputs;
  const expected = kind ?? first.kind;
  const other = inputs.find((i) => i.kind !== expected);
  if (other) {
    const one = inputs.find((i) => i.kind === expected);
    throw new UserError(`merge: ${other.file} holds ${shardWords(other.kind)}, ${one ? `${one.file} ${shardWords(expected)}: shards of different tests` : `not ${shardWords(expected)}`}`);
  }
  const count = first.shard.count;
  for (const i of inputs) {
    if (i.shard.count !== count) throw new UserError(`merge: ${i.file} is shard ${formatShard(i.shard)} but ${first.file} is shard ${formatShard(first.shard)}: shards of different tests`);
  }
  // The kind's own check first (an executor names what differs in its model in its own words),
  // then the test's identity, which shards stored before identities lack.
  for (const i of inputs.slice(1)) {
    const why = kindsOwnDifference(first, i);
    if (why) throw new UserError(why);
  }
  const notes: string[] = [];
  const unidentified = inputs.filter((i) => i.identity === undefined);
  if (unidentified.length === 0) {
    for (const i of inputs.slice(1)) {
      const why = differentTests(i.file, i.identity!, first.file, first.identity!);
      if (why) throw new UserError(`merge: ${why}`);
    }
  } else {
    const compared = first.kind === 'request' ? 'their load model and servers' : 'their workload and servers';
    notes.push(`${unidentified.map((i) => i.file).join(', ')} ${unidentified.length > 1 ? 'were' : 'was'} stored before shards recorded their test's options: compared by ${compared} only`);
  }
  const byIndex = new Map<number, Opened>();
  for (const i of inputs) {
    const other = byIndex.get(i.shard.index);
    if (other) throw new UserError(`merge: ${other.file} and ${i.file} are both shard ${formatShard(i.shard)}`);
    byIndex.set(i.shard.index, i);
  }
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !byIndex.has(k));
  if (missing.length > 0) {
    throw new UserError(`merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} missing (given: ${inputs.map(where).join(', ')})`);
  }
  return notes;
}

/** What the shards' kind says tells two of its shards apart, as the merge judged shards before identities. */
function kindsOwnDifference(first: Opened, other: Opened): string | undefined {
  if (first.kind === 'request' && other.kind === 'request') return requestShardsDiffer(first, other);
  if (first.kind === 'wallet' && other.kind === 'wallet') return walletShardsDiffer(first, other);
  return undefined;
}

/**
 * The merged run, whatever its kind: the worst of the shards' statuses, the shards and the test
 * recorded with it, its span the shards' (the test ran when its shards ran, not when they were
 * merged); what it adds up is its kind's part.
 */
function write(byShard: Opened[], output: string, opts: MergeOptions, notes: string[]): MergeResult {
  const status = worstStatus(byShard.map((i) => i.run.status));
  const tool = toolInfo();
  const config = {
    ...opts.config,
    test: byShard[0].identity ?? { compared: notes.join('; ') },
    merge: byShard.map((i) => ({
      file: path.resolve(i.file),
      runId: i.run.number,
      shard: formatShard(i.shard),
      status: i.run.status,
      toolVersion: i.run.tool_version,
      gitCommit: i.run.git_commit,
      host: parseOr(i.run.host_json),
      config: parseOr(i.run.config_json),
    })),
  };
  const common = { output, shards: byShard.map((i) => ({ file: i.file, runId: i.run.number, shard: formatShard(i.shard) })), status };
  return writeResults(output, (results) => {
    const record = { status, tool, config, extra: opts.config ?? {} };
    const first = byShard[0];
    const written =
      first.kind === 'request'
        ? { ...common, ...writeRequestMerge(results, byShard as RequestShard[], { ...record, thresholds: opts.thresholds }) }
        : { ...common, ...writeWalletMerge(results, byShard as WalletShard[], record) };
    const finished = byShard.map((i) => i.run.finished_at);
    new LoadStore(results).setSpan(written.runId, byShard.map((i) => i.run.started_at).sort()[0], finished.every((f) => f !== null) ? (finished as string[]).sort().at(-1)! : null);
    return written;
  });
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * `load merge`: the shards' databases claimed as inputs and `output` as the one written, the
 * merge, and its exit code from the one table (a threshold failed on the whole test: 99). A
 * database this created and a refusal left empty is removed.
 */
export function mergeSession(inputs: string[], output: string, opts: MergeOptions): { merged: MergeResult; code: number } {
  for (const input of inputs) claimInput(input, 'shard database');
  claimDatabase(output);
  const created = fileAboutToBeCreated(output);
  let merged: MergeResult;
  try {
    merged = mergeShards(inputs, output, opts);
  } catch (err) {
    created?.remove();
    throw err;
  }
  const thresholds = isWalletMerge(merged) ? [] : merged.thresholds;
  // The shards' own stops are theirs, not this command's: a merge of an interrupted test is written, and exits by its checks alone.
  const code = exitCodeOf({ status: 'completed', thresholdsFailed: thresholds.some((t) => !t.pass), regressed: false, unanswered: [], ignoreUnanswered: true });
  return { merged, code };
}
