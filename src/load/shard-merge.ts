/**
 * One test from its shards: each shard (`--shard I/N`) ran its share of the schedule, possibly on
 * another machine, on the same schedule clock (seconds of the epoch). Merging adds, per server and
 * per second, what every shard saw — counts, sent, dropped, in flight, target rates and VUs, and
 * the HdrHistograms — so the merged run's summary, thresholds and report are those of the whole
 * test. Histograms add exactly: a percentile of the merge is that of one histogram holding every
 * value. The merge streams second by second, so memory does not grow with the run.
 */
import fs from 'node:fs';
import * as hdr from 'hdr-histogram-js';
import { ResultsStore } from '../store/results';
import { LoadRunRow, LoadStore } from '../store/load-results';
import type { IntervalCell, IntervalRecord, LoadModel, LoadOutcome } from '../core/load-types';
import type { MethodName } from '../core/methods';
import { UserError } from '../user-error';
import { newHistogram } from './recorder';

interface Shard {
  file: string;
  results: ResultsStore;
  store: LoadStore;
  run: LoadRunRow;
  index: number;
  count: number;
}

function openShard(file: string): Shard {
  if (!fs.existsSync(file)) throw new UserError(`load merge: no such results database: ${file}`);
  const results = ResultsStore.open(file, { readonly: true });
  const store = new LoadStore(results);
  let runs: LoadRunRow[];
  try {
    runs = store.runs();
  } catch {
    results.close();
    throw new UserError(`load merge: ${file} holds no load run`);
  }
  const run = runs[runs.length - 1];
  if (!run) {
    results.close();
    throw new UserError(`load merge: ${file} holds no load run`);
  }
  const m = run.shard ? /^(\d+)\/(\d+)$/.exec(run.shard) : null;
  if (!m) {
    results.close();
    throw new UserError(`load merge: load run ${run.id} of ${file} is not a shard (run it with --shard I/N)`);
  }
  return { file, results, store, run, index: Number(m[1]), count: Number(m[2]) };
}

/** The model without what a shard changes (its share of the VUs), for comparing shards. */
function shape(model: LoadModel): string {
  return JSON.stringify(model.kind === 'vus' ? { ...model, vus: 0 } : model);
}

export function mergeShards(inputs: string[], output: string): { runId: number; seconds: number } {
  if (inputs.length < 2) throw new UserError('load merge: give at least two shard databases');
  const shards: Shard[] = [];
  try {
    for (const f of inputs) shards.push(openShard(f));
    const n = shards[0].count;
    for (const s of shards) {
      if (s.count !== n) throw new UserError(`load merge: ${s.file} is shard ${s.run.shard}, but ${shards[0].file} is ${shards[0].run.shard}: shards of one test share N`);
      if (shape(JSON.parse(s.run.model_json)) !== shape(JSON.parse(shards[0].run.model_json))) {
        throw new UserError(`load merge: ${s.file} ran another load model than ${shards[0].file}`);
      }
    }
    const seen = new Map<number, string>();
    for (const s of shards) {
      if (seen.has(s.index)) throw new UserError(`load merge: shard ${s.index}/${n} appears twice (${seen.get(s.index)} and ${s.file})`);
      seen.set(s.index, s.file);
    }
    const missing = Array.from({ length: n }, (_, i) => i + 1).filter((i) => !seen.has(i));
    if (missing.length) throw new UserError(`load merge: shards ${missing.map((i) => `${i}/${n}`).join(', ')} are missing`);
    return write(shards, output);
  } finally {
    for (const s of shards) s.results.close();
  }
}

function write(shards: Shard[], output: string): { runId: number; seconds: number } {
  const out = ResultsStore.open(output);
  try {
    const store = new LoadStore(out);
    const first = shards[0];
    const model = JSON.parse(first.run.model_json) as LoadModel;
    const merged: LoadModel = model.kind === 'vus' ? { ...model, vus: shards.reduce((t, s) => t + (JSON.parse(s.run.model_json) as { vus: number }).vus, 0) } : model;
    const names = [...new Set(shards.flatMap((s) => s.store.servers(s.run.id).map((x) => x.name)))];
    let runId = 0;
    let seconds = 0;
    out.db.transaction(() => {
      const created = store.createRun(
        {
          tool_version: first.run.tool_version,
          git_commit: first.run.git_commit,
          config: { mergedFrom: shards.map((s) => ({ file: s.file, run: s.run.id, shard: s.run.shard })) },
          model: merged,
          dataset_path: first.run.dataset_path,
          dataset_hash: first.run.dataset_hash,
          shard: null,
          merged_from: shards.map((s) => s.file),
        },
        names.map((name) => {
          const row = first.store.servers(first.run.id).find((x) => x.name === name);
          return { name, profile: row?.profile ?? 'generic', url: row?.url ?? '', software: row?.software ?? null, protocol: row?.protocol ?? null };
        }),
      );
      runId = created.runId;
      for (const name of names) seconds = Math.max(seconds, mergeServer(shards, name, store, runId, created.serverIds.get(name)!));
      store.finishRun(runId, {
        status: shards.every((s) => s.run.status === 'completed') ? 'completed' : 'interrupted',
        generatorBound: shards.some((s) => s.run.generator_bound === 1),
        generator: shards.map((s) => ({ shard: s.run.shard, generator: s.run.generator_json ? JSON.parse(s.run.generator_json) : null })),
      });
    })();
    return { runId, seconds };
  } finally {
    out.close();
  }
}

/** Adds the shards' intervals of one server second by second (aligned on the epoch second). */
function mergeServer(shards: Shard[], name: string, store: LoadStore, runId: number, serverId: number): number {
  const iterators = shards.map((s) => {
    const server = s.store.servers(s.run.id).find((x) => x.name === name);
    return server ? s.store.intervals(s.run.id, server.id) : [][Symbol.iterator]();
  });
  const heads: Array<IntervalRecord | undefined> = iterators.map((it) => it.next().value as IntervalRecord | undefined);
  const second = (r: IntervalRecord) => Math.floor(r.startMs / 1000);
  const firstSecond = Math.min(...heads.filter((h): h is IntervalRecord => !!h).map(second));
  let written = 0;
  for (;;) {
    const live = heads.filter((h): h is IntervalRecord => !!h);
    if (live.length === 0) return written;
    const now = Math.min(...live.map(second));
    const group: IntervalRecord[] = [];
    heads.forEach((h, i) => {
      if (h && second(h) === now) {
        group.push(h);
        heads[i] = iterators[i].next().value as IntervalRecord | undefined;
      }
    });
    store.addInterval(runId, serverId, sum(group, name, now - firstSecond));
    written++;
  }
}

function sum(group: IntervalRecord[], server: string, index: number): IntervalRecord {
  const cells = new Map<string, { method: MethodName; outcome: LoadOutcome; count: number; bytes: number; latency: hdr.Histogram | null; service: hdr.Histogram | null }>();
  const lag = newHistogram();
  let lagged = false;
  const add = (into: hdr.Histogram, b64: string) => {
    const h = hdr.decodeFromCompressedBase64(b64, 32, false);
    into.add(h);
    h.destroy();
  };
  for (const r of group) {
    if (r.lag) {
      add(lag, r.lag);
      lagged = true;
    }
    for (const c of r.cells) {
      const key = `${c.method}\u0000${c.outcome}`;
      let m = cells.get(key);
      if (!m) cells.set(key, (m = { method: c.method, outcome: c.outcome, count: 0, bytes: 0, latency: null, service: null }));
      m.count += c.count;
      m.bytes += c.bytes;
      if (c.latency) add((m.latency ??= newHistogram()), c.latency);
      if (c.service) add((m.service ??= newHistogram()), c.service);
    }
  }
  const encoded: IntervalCell[] = [...cells.values()].map((c) => ({
    method: c.method,
    outcome: c.outcome,
    count: c.count,
    bytes: c.bytes,
    latency: c.latency ? hdr.encodeIntoCompressedBase64(c.latency) : null,
    service: c.service ? hdr.encodeIntoCompressedBase64(c.service) : null,
  }));
  const rates = group.map((r) => r.targetRate).filter((x): x is number => x !== null);
  const vus = group.map((r) => r.vus).filter((x): x is number => x !== null);
  return {
    server,
    index,
    startMs: Math.min(...group.map((r) => r.startMs)),
    lengthMs: Math.max(...group.map((r) => r.lengthMs)),
    targetRate: rates.length ? rates.reduce((a, b) => a + b, 0) : null,
    vus: vus.length ? vus.reduce((a, b) => a + b, 0) : null,
    sent: group.reduce((t, r) => t + r.sent, 0),
    dropped: group.reduce((t, r) => t + r.dropped, 0),
    inFlight: group.reduce((t, r) => t + r.inFlight, 0),
    lag: lagged ? hdr.encodeIntoCompressedBase64(lag) : null,
    loopDelayP99Us: Math.max(...group.map((r) => r.loopDelayP99Us)),
    cells: encoded,
  };
}
