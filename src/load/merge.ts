/**
 * `load merge`: the shards of one load test (each run with `--shard I/N` on its own process or
 * machine, into its own results database) added back into one load run, as if one generator had
 * sent the whole load: per server and per second of the shared schedule clock, counts and
 * histograms summed. A set of shards that is not one whole test is refused before anything is
 * written, and the merged run is written in one transaction: it appears whole or not at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { toolInfo } from '../core/tool-info';
import { readStoppedAnswering, stoppedAnsweringAll } from '../core/stopped-answering';
import { readOutages, unionOfOutages } from '../core/outages';
import { LoadStore, type LoadRunRow, type LoadRunStatus, type LoadServerRow } from '../store/load-results';
import { ResultsStore } from '../store/results';
import { writeResults } from '../store/write-results';
import { UserError } from '../core/user-error';
import { alignedSeconds, sumSecond } from '../engine/sinks/merge-intervals';
import { formatShard, parseShard, type Shard } from '../core/shard';
import { executorFor, isLoadModelKind, type LoadModel } from '../engine/executors/registry';
import { createThresholdTracker, type ThresholdResult } from './thresholds';

export interface MergeOptions {
  /** One load run id per input, in the same order; default: each file's latest load run. */
  runIds?: number[];
  /** k6-style thresholds judged on the merged run (the whole test), stored with it. */
  thresholds?: string[];
  /** More to record in the merged run's config (e.g. a coordinated test's start skew). */
  config?: Record<string, unknown>;
}

export interface MergeResult {
  runId: number;
  output: string;
  shards: Array<{ file: string; runId: number; shard: string }>;
  servers: string[];
  /** Merged intervals written, over all servers. */
  intervals: number;
  status: LoadRunStatus;
  /** The thresholds' verdicts on the merged run (empty without MergeOptions.thresholds). */
  thresholds: ThresholdResult[];
}

interface Input {
  file: string;
  results: ResultsStore;
  store: LoadStore;
  run: LoadRunRow;
  shard: Shard;
  model: LoadModel;
  servers: LoadServerRow[];
}

export function mergeShards(inputs: string[], output: string, opts: MergeOptions = {}): MergeResult {
  if (inputs.length === 0) throw new UserError('merge: no input: give the result databases of the shards');
  if (opts.runIds && opts.runIds.length !== inputs.length) {
    throw new UserError(`merge: --run: one run id per input file (${inputs.length}), got ${opts.runIds.length}`);
  }
  const outputPath = path.resolve(output);
  for (const file of inputs) {
    if (path.resolve(file) === outputPath) throw new UserError(`merge: ${file} is both an input and the output; write the merge to a new database`);
  }
  const opened: Input[] = [];
  try {
    inputs.forEach((file, i) => opened.push(openInput(file, opts.runIds?.[i])));
    checkOneTest(opened);
    return write(opened, output, opts);
  } finally {
    for (const input of opened) input.results.close();
  }
}

function openInput(file: string, runId: number | undefined): Input {
  if (!fs.existsSync(file)) throw new UserError(`merge: ${file}: no such file`);
  let results: ResultsStore;
  try {
    results = ResultsStore.open(file, { readonly: true });
  } catch {
    throw new UserError(`merge: ${file} is not an electrum-bench results database`);
  }
  try {
    const store = new LoadStore(results);
    const latest = store.runs().at(-1);
    const id = runId ?? latest?.number;
    if (id === undefined) throw new UserError(`merge: ${file} has no load run`);
    const run = runId === undefined ? latest : store.run(store.resolve(runId) ?? runId);
    if (!run) throw new UserError(`merge: ${file} has no load run ${id}`);
    if (run.shard === null) throw new UserError(`merge: ${file}: load run ${id} is not a shard (it ran without --shard I/N); only the shards of one test merge`);
    const shard = parseShard(run.shard, `merge: ${file}: load run ${id}: shard`);
    let model: LoadModel;
    try {
      model = JSON.parse(run.model_json) as LoadModel;
    } catch {
      throw new UserError(`merge: ${file}: load run ${id} has an unreadable load model`);
    }
    if (typeof model?.kind !== 'string' || !isLoadModelKind(model.kind)) throw new UserError(`merge: ${file}: load run ${id} has an unreadable load model`);
    return { file, results, store, run, shard, model, servers: store.servers(run.id) };
  } catch (err) {
    results.close();
    throw err;
  }
}

const where = (i: Input): string => `${i.file} (shard ${i.run.shard}, run ${i.run.number})`;

/** N shards, each I from 1 to N exactly once, the same model (up to the rate share) and servers. */
function checkOneTest(inputs: Input[]): void {
  const [first] = inputs;
  const count = first.shard.count;
  for (const i of inputs) {
    if (i.shard.count !== count) throw new UserError(`merge: ${i.file} is shard ${i.run.shard} but ${first.file} is shard ${first.run.shard}: shards of different tests`);
  }
  const byIndex = new Map<number, Input>();
  for (const i of inputs) {
    const other = byIndex.get(i.shard.index);
    if (other) throw new UserError(`merge: ${other.file} and ${i.file} are both shard ${i.run.shard}`);
    byIndex.set(i.shard.index, i);
  }
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !byIndex.has(k));
  if (missing.length > 0) {
    throw new UserError(`merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} missing (given: ${inputs.map(where).join(', ')})`);
  }
  for (const i of inputs.slice(1)) {
    const why = modelDifference(first.model, i.model);
    if (why) throw new UserError(`merge: ${i.file} ran a different load model than ${first.file}: ${why}`);
    const names = (x: Input) => x.servers.map((s) => s.name).sort().join(', ');
    if (names(i) !== names(first)) throw new UserError(`merge: ${i.file} measured servers ${names(i) || 'none'} but ${first.file} measured ${names(first) || 'none'}`);
  }
}

/** Why two shards' models are not one test; undefined when they differ at most in the rate or VU share. */
function modelDifference(a: LoadModel, b: LoadModel): string | undefined {
  if (a.kind !== b.kind) return `${b.kind} instead of ${a.kind}`;
  return executorFor(a).mismatch?.(a, b as typeof a);
}


const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Completed only if every shard completed; otherwise the worst shard's ending (a shard still "running" died or is not done). */
function mergedStatus(inputs: Input[]): LoadRunStatus {
  const statuses = new Set(inputs.map((i) => i.run.status));
  for (const s of ['failed', 'aborted', 'interrupted', 'running'] as const) if (statuses.has(s)) return s === 'running' ? 'interrupted' : s;
  return 'completed';
}

/**
 * Per server, the shards' generator checks side by side (a generator-bound shard makes the whole
 * test's load suspect), keyed by server name like a single run's, so the report reads it alike.
 */
function mergedGenerator(inputs: Input[], servers: string[]): Record<string, unknown> | undefined {
  const out: Record<string, { bound: boolean; reasons: string[]; shards: unknown[] }> = {};
  for (const i of inputs) {
    let all: unknown;
    try {
      all = i.run.generator_json === null ? null : JSON.parse(i.run.generator_json);
    } catch {
      all = null;
    }
    for (const server of servers) {
      const g = (all as Record<string, unknown> | null)?.[server] as { bound?: unknown; reasons?: unknown } | undefined;
      if (typeof g !== 'object' || g === null) continue;
      const entry = (out[server] ??= { bound: false, reasons: [], shards: [] });
      entry.bound ||= g.bound === true;
      if (Array.isArray(g.reasons)) entry.reasons.push(...g.reasons.map((r) => `shard ${i.run.shard}: ${String(r)}`));
      entry.shards.push({ shard: i.run.shard, ...g });
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Per server, the shards' outcomes added up (each shard's requests are its own: the sums stay
 * every scheduled request's one outcome). The server stopped answering the test only if it stopped
 * answering every shard: then from the latest moment any shard last heard from it.
 */
function mergedOutcome(byShard: Input[], name: string): Record<string, unknown> | null {
  const stored = byShard.map((i) => parseOr(i.servers.find((s) => s.name === name)?.outcome_json ?? 'null'));
  if (!stored.every((o): o is Record<string, unknown> => typeof o === 'object' && o !== null)) return null;
  const sum = (k: string) => stored.reduce((t, o) => t + (typeof o[k] === 'number' ? (o[k] as number) : 0), 0);
  const outcomes: Record<string, number> = {};
  for (const o of stored) for (const [k, v] of Object.entries((o.outcomes ?? {}) as Record<string, number>)) outcomes[k] = (outcomes[k] ?? 0) + v;
  const stopped = stoppedAnsweringAll(stored.map((o) => readStoppedAnswering(o.stoppedAnswering)));
  const outages = unionOfOutages(stored.flatMap((o) => readOutages(o.outages)));
  return { outcomes, scheduled: sum('scheduled'), sent: sum('sent'), answered: sum('answered'), achievedRps: round(sum('achievedRps')), sentRps: round(sum('sentRps')), stoppedAnswering: stopped, outages };
}

function write(inputs: Input[], output: string, opts: MergeOptions): MergeResult {
  const byShard = [...inputs].sort((a, b) => a.shard.index - b.shard.index);
  const serverNames = inputs[0].servers.map((s) => s.name);
  return writeResults(output, (results) => {
    const store = new LoadStore(results);
    const tool = toolInfo();
    const distinct = (values: Array<string | null>) => [...new Set(values)];
    const hashes = distinct(inputs.map((i) => i.run.dataset_hash));
    const paths = distinct(inputs.map((i) => i.run.dataset_path));
    const status = mergedStatus(inputs);
    const model = executorFor(byShard[0].model).merge(byShard.map((i) => i.model));
    const tracker = opts.thresholds?.length ? createThresholdTracker(opts.thresholds, { servers: serverNames }) : undefined;
    const { runId, serverIds } = store.createRun(
      {
        tool_version: tool.version,
        git_commit: tool.gitCommit,
        config: {
          ...opts.config,
          thresholds: opts.thresholds,
          merge: byShard.map((i) => ({
            file: path.resolve(i.file),
            runId: i.run.number,
            shard: i.run.shard,
            status: i.run.status,
            toolVersion: i.run.tool_version,
            gitCommit: i.run.git_commit,
            host: parseOr(i.run.host_json),
            config: parseOr(i.run.config_json),
            model: i.model,
          })),
        },
        model,
        model_text: executorFor(model).describe(model),
        dataset_path: paths.length === 1 ? paths[0] : null,
        dataset_hash: hashes.length === 1 ? hashes[0] : null,
        shard: null,
        merged_from: byShard.map((i) => path.resolve(i.file)),
      },
      serverNames.map((name) => {
        const rows = byShard.map((i) => i.servers.find((s) => s.name === name)!);
        return { name, profile: rows[0].profile, url: rows[0].url, software: rows.find((r) => r.software)?.software ?? null, protocol: rows.find((r) => r.protocol)?.protocol ?? null };
      }),
    );
    for (const name of serverNames) {
      const outcome = mergedOutcome(byShard, name);
      if (outcome) store.setServerOutcome(serverIds.get(name)!, outcome);
    }
    let intervals = 0;
    for (const name of serverNames) {
      const streams = byShard.map((i) => ({ source: `${i.file} run ${i.run.number}`, it: i.store.intervals(i.run.id, i.servers.find((s) => s.name === name)!.id) }));
      let first: number | undefined; // seconds come in order: the first is the earliest of any shard
      for (const { second, records } of alignedSeconds(streams)) {
        first ??= second;
        const rec = sumSecond(name, second - first, second, records);
        store.addInterval(runId, serverIds.get(name)!, rec, rec.step);
        tracker?.observe(rec);
        intervals++;
      }
    }
    const verdicts = tracker?.results();
    store.finishRun(runId, {
      status,
      generatorBound: inputs.some((i) => i.run.generator_bound !== 0),
      generator: mergedGenerator(byShard, serverNames),
      thresholds: verdicts,
    });
    // The test ran when its shards ran, not when they were merged.
    const finished = inputs.map((i) => i.run.finished_at);
    store.setSpan(runId, inputs.map((i) => i.run.started_at).sort()[0], finished.every((f) => f !== null) ? (finished as string[]).sort().at(-1)! : null);
    return {
      runId,
      output,
      shards: byShard.map((i) => ({ file: i.file, runId: i.run.number, shard: formatShard(i.shard) })),
      servers: serverNames,
      intervals,
      status,
      thresholds: verdicts ?? [],
    };
  });
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
