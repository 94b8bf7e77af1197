/**
 * The request load's part of the shard merge (src/runs/merge.ts, which checks the shards are one
 * whole test, sets the status and writes in one transaction): a request shard's load model and
 * servers read, and its seconds added back into one load run, as if one generator had sent the
 * whole load: per server and per second of the shared schedule clock, counts and histograms summed.
 */
import path from 'node:path';
import { readStoppedAnswering, stoppedAnsweringAll } from '../core/stopped-answering';
import { readOutages, unionOfOutages } from '../core/outages';
import type { FinalStatus } from '../core/run-status';
import { LoadStore, type LoadRunRow, type LoadServerRow } from '../store/load-results';
import type { ResultsStore } from '../store/results';
import { UserError } from '../core/user-error';
import { alignedSeconds, sumSecond } from '../engine/sinks/merge-intervals';
import type { Shard } from '../core/shard';
import { executorFor, isLoadModelKind, type LoadModel } from '../engine/executors/registry';
import { createThresholdTracker, type ThresholdResult } from './thresholds';

/** A request load's shard as the merge reads it. */
export interface RequestShard {
  file: string;
  store: LoadStore;
  run: LoadRunRow;
  shard: Shard;
  model: LoadModel;
  servers: LoadServerRow[];
}

/** The request load runs of a database, in the order they were made. */
export const requestRuns = (results: ResultsStore): LoadRunRow[] => new LoadStore(results).runs();

/** What the merge reads of a request shard's run, beside its run record. */
export function requestShard(file: string, results: ResultsStore, run: LoadRunRow, shard: Shard): RequestShard {
  const store = new LoadStore(results);
  let model: LoadModel;
  try {
    model = JSON.parse(run.model_json) as LoadModel;
  } catch {
    throw new UserError(`merge: ${file}: load run ${run.number} has an unreadable load model`);
  }
  if (typeof model?.kind !== 'string' || !isLoadModelKind(model.kind)) throw new UserError(`merge: ${file}: load run ${run.number} has an unreadable load model`);
  return { file, store, run, shard, model, servers: store.servers(run.id) };
}

/**
 * Why two request shards stored before test identities are not one test, as the merge judged them
 * then: another load model (up to the rate or VU share), or other servers.
 */
export function requestShardsDiffer(first: RequestShard, other: RequestShard): string | undefined {
  const why = modelDifference(first.model, other.model);
  if (why) return `merge: ${other.file} ran a different load model than ${first.file}: ${why}`;
  const names = (x: RequestShard) => x.servers.map((s) => s.name).sort().join(', ');
  if (names(other) !== names(first)) return `merge: ${other.file} measured servers ${names(other) || 'none'} but ${first.file} measured ${names(first) || 'none'}`;
  return undefined;
}

/** Why two shards' models are not one test; undefined when they differ at most in the rate or VU share. */
function modelDifference(a: LoadModel, b: LoadModel): string | undefined {
  if (a.kind !== b.kind) return `${b.kind} instead of ${a.kind}`;
  return executorFor(a).mismatch?.(a, b as typeof a);
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * Per server, the shards' generator checks side by side (a generator-bound shard makes the whole
 * test's load suspect), keyed by server name like a single run's, so the report reads it alike.
 */
function mergedGenerator(inputs: RequestShard[], servers: string[]): Record<string, unknown> | undefined {
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
function mergedOutcome(byShard: RequestShard[], name: string): Record<string, unknown> | null {
  const stored = byShard.map((i) => parseOr(i.servers.find((s) => s.name === name)?.outcome_json ?? 'null'));
  if (!stored.every((o): o is Record<string, unknown> => typeof o === 'object' && o !== null)) return null;
  const sum = (k: string) => stored.reduce((t, o) => t + (typeof o[k] === 'number' ? (o[k] as number) : 0), 0);
  const outcomes: Record<string, number> = {};
  for (const o of stored) for (const [k, v] of Object.entries((o.outcomes ?? {}) as Record<string, number>)) outcomes[k] = (outcomes[k] ?? 0) + v;
  const stopped = stoppedAnsweringAll(stored.map((o) => readStoppedAnswering(o.stoppedAnswering)));
  const outages = unionOfOutages(stored.flatMap((o) => readOutages(o.outages)));
  return { outcomes, scheduled: sum('scheduled'), sent: sum('sent'), answered: sum('answered'), achievedRps: round(sum('achievedRps')), sentRps: round(sum('sentRps')), stoppedAnswering: stopped, outages };
}

/** What the merge tells the request part: the test's status, the config to store, the thresholds to judge. */
export interface RequestMerge {
  status: FinalStatus;
  tool: { version: string; gitCommit: string | null };
  config: Record<string, unknown>;
  /** k6-style thresholds judged on the merged run (the whole test), stored with it. */
  thresholds?: string[];
}

/**
 * The merged load run written into `results` (inside the merge's transaction) from `byShard`
 * (shard 1 first): the model the shards' shares make, the servers, their outcomes added, every
 * second summed, the thresholds judged on the whole.
 */
export function writeRequestMerge(results: ResultsStore, byShard: RequestShard[], merge: RequestMerge): { runId: number; servers: string[]; intervals: number; thresholds: ThresholdResult[] } {
  const serverNames = byShard[0].servers.map((s) => s.name);
  const store = new LoadStore(results);
  const distinct = (values: Array<string | null>) => [...new Set(values)];
  const hashes = distinct(byShard.map((i) => i.run.dataset_hash));
  const paths = distinct(byShard.map((i) => i.run.dataset_path));
  const model = executorFor(byShard[0].model).merge(byShard.map((i) => i.model));
  const tracker = merge.thresholds?.length ? createThresholdTracker(merge.thresholds, { servers: serverNames }) : undefined;
  const { runId, serverIds } = store.createRun(
    {
      tool_version: merge.tool.version,
      git_commit: merge.tool.gitCommit,
      config: { ...merge.config, thresholds: merge.thresholds },
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
    status: merge.status,
    generatorBound: byShard.some((i) => i.run.generator_bound !== 0),
    generator: mergedGenerator(byShard, serverNames),
    thresholds: verdicts,
  });
  return { runId, servers: serverNames, intervals, thresholds: verdicts ?? [] };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
