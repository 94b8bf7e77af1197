/**
 * `load --shard I/N --coordinator HOST:PORT`: the wiring of a coordinated test. Every shard runs
 * its share into a scratch database; shard 1 starts them together (src/engine/coordinator.ts),
 * takes their databases, merges them into --db with the existing exact merge, judges the
 * thresholds on the whole test and prints its one summary. The other shards print their own
 * part and exit 0 once the coordinator has their results: the test's verdict is shard 1's exit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Coordinator, ShardLink, type TestLink } from '../engine/coordinator';
import { mergeRequestShards, mergeWalletShards } from './merge';
import type { ThresholdResult } from '../load/thresholds';
import { formatShard, type Shard } from '../core/shard';
import type { CoordinatorAddress } from '../engine/coordinator';
import { ResultsStore } from '../store/results';
import { LoadStore } from '../store/load-results';
import { isObject, parseStoredJson } from '../core/stored-json';
import * as hdr from 'hdr-histogram-js';
import { newHistogram } from '../engine/sinks/hdr-intervals';
import { histogramLine } from '../core/percentile-line';
import { UserError } from '../core/user-error';
import { releaseClaims } from '../core/output-path';
import { onSignalBeforeStart } from './signals';
import { meetingTag } from '../runs/test-identity';

export interface CoordinatedShard {
  link: TestLink;
  coordinator?: Coordinator;
  shardLink?: ShardLink;
  /** The scratch database this shard's own run goes into. */
  database: string;
  /** When the readiness deadline ends (epoch ms). */
  readyBy: number;
  /** Removes the scratch files. */
  cleanUp(): void;
}

/** Listens (shard 1) or registers with the coordinator (the others), before any other work. */
export async function joinTest(address: CoordinatorAddress, shard: Shard, options: Record<string, unknown>, readyTimeoutMs: number): Promise<CoordinatedShard> {
  const readyBy = Date.now() + readyTimeoutMs;
  const test = meetingTag(options, shard);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `electrum-bench-shard-${shard.index}-`));
  const cleanUp = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    if (shard.index === 1) {
      const coordinator = await Coordinator.listen(address, shard, test);
      return { link: coordinator, coordinator, database: path.join(dir, 'shard.sqlite'), readyBy, cleanUp };
    }
    const shardLink = await ShardLink.connect(address, shard, test, readyTimeoutMs);
    return { link: shardLink, shardLink, database: path.join(dir, 'shard.sqlite'), readyBy, cleanUp };
  } catch (err) {
    cleanUp();
    throw err;
  }
}

/**
 * Runs `run` as this process's part of a coordinated test (`shard` and `address` given), or alone.
 * First of all the test's shards meet, so that one which cannot go on fails the whole test at
 * once; a stop while they meet ends this shard at once (its claims released), and the others learn
 * it. `handOver` ends that early stop once `run` has its own; what `run` throws calls the test off.
 */
export async function asShard<T>(
  meet: { address: CoordinatorAddress; shard: Shard; readyTimeoutMs: number } | undefined,
  options: Record<string, unknown>,
  run: (test: CoordinatedShard | undefined, handOver: () => void) => Promise<T>,
): Promise<T> {
  let test: CoordinatedShard | undefined;
  const handOver = meet
    ? onSignalBeforeStart(() => {
        test?.coordinator?.abort(`shard ${formatShard(meet.shard)} was stopped before the start`);
        test?.link.close();
        test?.cleanUp();
        releaseClaims();
      })
    : () => {};
  test = meet ? await joinTest(meet.address, meet.shard, options, meet.readyTimeoutMs) : undefined;
  try {
    return await run(test, handOver);
  } catch (err) {
    test?.shardLink?.failed((err as Error).message);
    test?.coordinator?.abort((err as Error).message);
    throw err;
  } finally {
    handOver();
    test?.link.close();
    test?.cleanUp();
  }
}

export interface MergedTest {
  runId: number;
  status: string;
  thresholds: ThresholdResult[];
  startSkew: ReturnType<Coordinator['startSkew']>;
  json: Record<string, unknown>;
}

/**
 * Shard 1, after its own run: every shard's database, merged into `db` with the thresholds
 * judged on the whole; what the merged run says of each server (its stored outcome and the
 * percentiles of its answers over every second), as the JSON of the whole test.
 */
export async function mergeTest(c: CoordinatedShard, shard: Shard, db: string, thresholds: string[], resultsTimeoutMs: number): Promise<MergedTest> {
  const inputs = await shardDatabases(c, resultsTimeoutMs);
  const startSkew = c.coordinator!.startSkew();
  const merged = mergeRequestShards(inputs, db, { thresholds, config: { coordinated: { shards: shard.count, startSkew } } });
  const results = ResultsStore.open(db, { readonly: true });
  try {
    const loads = new LoadStore(results);
    const run = loads.run(merged.runId)!;
    const servers = loads.servers(run.id).map((s) => ({ server: s.name, ...storedObjectOf(s.outcome_json ?? null), ...okLatency(loads, run.id, s.id) }));
    const json = { runId: run.number, db, status: merged.status, shards: merged.shards, startSkew, servers, thresholds: merged.thresholds };
    return { runId: run.number, status: merged.status, thresholds: merged.thresholds, startSkew, json };
  } finally {
    results.close();
  }
}

/** A stored JSON object; an unreadable one is none. */
function storedObjectOf(text: string | null): Record<string, unknown> {
  const v = parseStoredJson(text);
  return isObject(v) ? v : {};
}

/** The latency of a server's ok answers over the whole run (ms), every second's histogram added. */
function okLatency(loads: LoadStore, runId: number, serverId: number): { p50Ms: number | null; p90Ms: number | null; p99Ms: number | null; maxMs: number | null } {
  const whole = newHistogram();
  for (const rec of loads.intervals(runId, serverId)) {
    for (const cell of rec.cells) if (cell.outcome === 'ok' && cell.latency !== null && cell.count > 0) whole.add(hdr.decodeFromCompressedBase64(cell.latency));
  }
  const line = histogramLine(whole, 1000);
  return { p50Ms: line.p50, p90Ms: line.p90, p99Ms: line.p99, maxMs: line.max };
}

/** Every shard's database, shard 1's first, once all have sent theirs: files beside shard 1's own scratch database. */
async function shardDatabases(c: CoordinatedShard, resultsTimeoutMs: number): Promise<string[]> {
  const others = await c.coordinator!.results(resultsTimeoutMs);
  const dir = path.dirname(c.database);
  const inputs = [c.database];
  for (const [index, bytes] of [...others].sort((a, b) => a[0] - b[0])) {
    const file = path.join(dir, `shard-${index}.sqlite`);
    fs.writeFileSync(file, bytes);
    inputs.push(file);
  }
  return inputs;
}

/** Shard 1 of a coordinated wallet load, after its own run: every shard's run merged into `db` (src/runs/merge.ts). */
export async function mergeWalletTest(c: CoordinatedShard, shard: Shard, db: string, resultsTimeoutMs: number) {
  const inputs = await shardDatabases(c, resultsTimeoutMs);
  const startSkew = c.coordinator!.startSkew();
  const merged = mergeWalletShards(inputs, db, { config: { coordinated: { shards: shard.count, startSkew } } });
  return { ...merged, startSkew };
}

/** Shards 2..N, after their own run: the database to the coordinator. */
export async function sendResults(c: CoordinatedShard, shard: Shard, timeoutMs: number): Promise<void> {
  try {
    await c.shardLink!.sendResult(fs.readFileSync(c.database), timeoutMs);
  } catch (err) {
    throw new UserError(`--coordinator: shard ${formatShard(shard)} could not hand over its results: ${(err as Error).message}`);
  }
}
