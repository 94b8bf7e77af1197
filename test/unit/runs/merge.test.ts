/**
 * Merging the shards of one load test: two synthetic shard runs in two databases, written through
 * LoadStore with known histograms, merged into a third. The merge must be the sum of the shards,
 * second by second of the shared clock, and a set of shards that is not one whole test is refused
 * before anything is written. The same merge takes a wallet load's shards (synthetic, through
 * WalletStore) with the same checks and status rule; and `load merge` refuses real shards (runs
 * against a local responder) of two different tests, naming the option.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as hdr from 'hdr-histogram-js';
import type { IntervalCell } from '../../../src/core/load-types';
import type { LoadModel } from '../../../src/engine/executors/registry';
import type { MethodName } from '../../../src/core/methods';
import { mergeShards, mergeWalletShards } from '../../../src/runs/merge';
import { LoadStore } from '../../../src/store/load-results';
import { ResultsStore } from '../../../src/store/results';
import { UserError } from '../../../src/core/user-error';
import { executorFor } from '../../../src/engine/executors/registry';
import { WalletStore } from '../../../src/store/wallets';
import { ResultsReader } from '../../../src/store/read';
import { testIdentity, type TestIdentity } from '../../../src/runs/test-identity';
import type { ServerLoadSummary } from '../../../src/wallet/load';
import { startMisbehavingServerProcess } from '../../support/misbehaving-server';
import { writeSyntheticDataset } from '../../support/synthetic-lines';
import { refusal } from '../../support/refusal';
import { cli } from '../../support/cli';
import { exitOf, spawnCommand } from '../../support/command-process';

const T0 = 1_700_000_000_000;
const SERVERS = ['alpha', 'beta'];
const METHODS: MethodName[] = ['balance', 'history'];

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-merge-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function histogramOf(values: number[]): hdr.Histogram {
  const h = hdr.build({ numberOfSignificantValueDigits: 3 });
  for (const v of values) h.recordValue(v);
  return h;
}
const b64 = (values: number[]) => (values.length ? hdr.encodeIntoCompressedBase64(histogramOf(values)) : null);

/** What a shard wrote, kept to check the merge against: values per (server, epoch second, method). */
interface Shard {
  file: string;
  runId: number;
  ok: Map<string, number[]>;
  lag: Map<string, number[]>;
}
const key = (...parts: Array<string | number>) => parts.join('/');

interface ShardSpec {
  name: string;
  shard: string | null;
  startMs?: number; // the first interval's start; jitter within a second must not matter
  seconds?: number;
  model?: LoadModel;
  seed?: number;
  status?: 'completed' | 'interrupted' | 'aborted';
  bound?: boolean;
  corruptAt?: number; // a second whose balance histogram is unreadable
  /** Each server's stored outcomes, as `load` stores them (run_servers.outcome_json). */
  outcome?: Record<string, unknown>;
  /** The test's identity, as `load` stores it with a shard's run since identities; none before. */
  test?: TestIdentity;
}

function writeShard(spec: ShardSpec): Shard {
  const file = path.join(tmp, spec.name);
  const results = ResultsStore.open(file);
  const store = new LoadStore(results);
  const model = spec.model ?? { kind: 'rate', rate: 200 };
  const { runId, serverIds } = store.createRun(
    { tool_version: 't', git_commit: null, config: { shard: spec.shard, test: spec.test }, model, model_text: executorFor(model).describe(model), dataset_path: 'd.jsonl', dataset_hash: 'h', shard: spec.shard },
    SERVERS.map((name) => ({ name, profile: 'electrumx', url: 'tcp://127.0.0.1:50001', software: 'ElectrumX 1.16', protocol: '1.4' })),
  );
  const ok = new Map<string, number[]>();
  const lag = new Map<string, number[]>();
  const seed = spec.seed ?? 1;
  const startMs = spec.startMs ?? T0;
  for (const [si, server] of SERVERS.entries()) {
    for (let s = 0; s < (spec.seconds ?? 5); s++) {
      const second = Math.floor(startMs / 1000) + s;
      const cells: IntervalCell[] = [];
      for (const [m, method] of METHODS.entries()) {
        const values = Array.from({ length: 40 + 10 * m + seed * 7 + s }, (_, k) => 300 + ((k * 7919 * seed + s * 104729 + si * 613 + m * 97) % (20_000 * seed)));
        ok.set(key(server, second, method), values);
        const latency = spec.corruptAt === s && method === 'balance' ? 'HISTFAAAAnot-a-histogram' : b64(values);
        cells.push({ method, outcome: 'ok', count: values.length, bytes: values.length * 111, latency, service: b64(values.map((v) => Math.ceil(v / 2))) });
      }
      cells.push({ method: 'history', outcome: 'timeout', count: seed, bytes: 0, latency: b64([5_000_000]), service: b64([4_000_000]) });
      cells.push({ method: 'balance', outcome: 'dropped', count: 2 * seed, bytes: 0, latency: null, service: null });
      const lagValues = Array.from({ length: 10 }, (_, k) => 5 + k * seed + s);
      lag.set(key(server, second), lagValues);
      store.addInterval(runId, serverIds.get(server)!, {
        server, index: s, startMs: startMs + s * 1000, lengthMs: 1000, targetRate: 100, vus: null,
        sent: 100 * seed + s, dropped: 2 * seed, inFlight: seed, lag: b64(lagValues), loopDelayP99Us: 100 * seed + s, cells,
      });
    }
  }
  if (spec.outcome) for (const id of serverIds.values()) store.setServerOutcome(id, spec.outcome);
  store.finishRun(runId, {
    status: spec.status ?? 'completed',
    generatorBound: spec.bound ?? false,
    generator: Object.fromEntries(SERVERS.map((s) => [s, { bound: spec.bound ?? false, reasons: spec.bound ? ['lag p99 2 ms > 1 ms'] : [], lagP99Us: 10 }])),
  });
  results.close();
  return { file, runId, ok, lag };
}

function readMerged(file: string) {
  const results = ResultsStore.open(file, { readonly: true });
  const store = new LoadStore(results);
  const run = store.runs().at(-1)!;
  const servers = Object.fromEntries(store.servers(run.id).map((s) => [s.name, [...store.intervals(run.id, s.id)]]));
  results.close();
  return { run, servers };
}

describe('mergeShards', () => {
  it('adds the shards second by second, aligned on the shared clock when they started 1 s apart', () => {
    const a = writeShard({ name: 'a.sqlite', shard: '1/2', seed: 1 });
    // Shard 2 started one second later, a few ms into its second: the same schedule clock.
    const b = writeShard({ name: 'b.sqlite', shard: '2/2', seed: 2, startMs: T0 + 1007, bound: true });
    const out = path.join(tmp, 'all', 'merged.sqlite');
    const merged = mergeShards([b.file, a.file], out);
    expect(merged).toEqual({
      runId: 1,
      output: out,
      shards: [{ file: a.file, runId: a.runId, shard: '1/2' }, { file: b.file, runId: b.runId, shard: '2/2' }],
      servers: SERVERS,
      intervals: 2 * 6,
      status: 'completed',
      thresholds: [],
    });

    const { run, servers } = readMerged(out);
    expect(run.shard).toBeNull();
    expect(JSON.parse(run.merged_from!)).toEqual([path.resolve(a.file), path.resolve(b.file)]);
    expect(run.status).toBe('completed');
    expect(JSON.parse(run.model_json)).toEqual({ kind: 'rate', rate: 200 }); // the whole schedule both shards thinned
    expect(run.generator_bound).toBe(1);
    const generator = JSON.parse(run.generator_json!);
    expect(generator.alpha.bound).toBe(true);
    expect(generator.alpha.reasons).toEqual(['shard 2/2: lag p99 2 ms > 1 ms']);
    expect(generator.alpha.shards.map((g: { shard: string }) => g.shard)).toEqual(['1/2', '2/2']);

    const first = T0 / 1000;
    for (const server of SERVERS) {
      const intervals = servers[server];
      expect(intervals.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
      for (const r of intervals) {
        const second = first + r.index;
        expect(r.startMs).toBe(second * 1000);
        const from = [a, b].filter((sh) => sh.lag.has(key(server, second)));
        expect(from.length).toBe(r.index === 0 || r.index === 5 ? 1 : 2);
        const seeds = from.map((sh) => (sh === a ? 1 : 2));
        const s = (sh: Shard) => second - (sh === a ? first : first + 1); // the shard's own index
        expect(r.sent).toBe(from.reduce((t, sh, i) => t + 100 * seeds[i] + s(sh), 0));
        expect(r.dropped).toBe(seeds.reduce((t, x) => t + 2 * x, 0));
        expect(r.inFlight).toBe(seeds.reduce((t, x) => t + x, 0));
        expect(r.targetRate).toBe(100 * from.length);
        expect(r.vus).toBeNull();
        expect(r.loopDelayP99Us).toBe(Math.max(...from.map((sh, i) => 100 * seeds[i] + s(sh))));
        const lag = hdr.decodeFromCompressedBase64(r.lag!);
        expect(lag.totalCount).toBe(10 * from.length);
        for (const method of METHODS) {
          const all = from.flatMap((sh) => sh.ok.get(key(server, second, method))!);
          const cell = r.cells.find((c) => c.method === method && c.outcome === 'ok')!;
          expect(cell.count).toBe(all.length);
          expect(cell.bytes).toBe(all.length * 111);
          const latency = hdr.decodeFromCompressedBase64(cell.latency!);
          expect(latency.totalCount).toBe(all.length);
          expect(latency.getValueAtPercentile(99)).toBe(histogramOf(all).getValueAtPercentile(99));
          expect(hdr.decodeFromCompressedBase64(cell.service!).totalCount).toBe(all.length);
        }
        expect(r.cells.find((c) => c.outcome === 'timeout')).toMatchObject({ method: 'history', count: seeds.reduce((t, x) => t + x, 0) });
        expect(r.cells.find((c) => c.outcome === 'dropped')).toMatchObject({ method: 'balance', count: seeds.reduce((t, x) => t + 2 * x, 0), latency: null, service: null });
      }
      // The whole run's p99 of the merge is the p99 of one histogram holding every value of both shards.
      const whole = hdr.build({ numberOfSignificantValueDigits: 3 });
      for (const r of intervals) for (const c of r.cells) if (c.outcome === 'ok') whole.add(hdr.decodeFromCompressedBase64(c.latency!));
      const everything = [a, b].flatMap((sh) => [...sh.ok].filter(([k]) => k.startsWith(`${server}/`)).flatMap(([, v]) => v));
      expect(whole.totalCount).toBe(everything.length);
      expect(whole.getValueAtPercentile(99)).toBe(histogramOf(everything).getValueAtPercentile(99));
    }
  });

  it('takes the run asked for, adds closed-model VU shares, and carries the worst shard status', () => {
    const vus = (n: number): LoadModel => ({ kind: 'vus', vus: n, thinkTimeMs: 0 });
    const a = writeShard({ name: 'a.sqlite', shard: '1/2', model: vus(3), status: 'interrupted' });
    const b = writeShard({ name: 'b.sqlite', shard: '2/2', model: vus(2) });
    // A later, unrelated run in a.sqlite: the default would take it.
    const results = ResultsStore.open(a.file);
    new LoadStore(results).createRun({ tool_version: 't', git_commit: null, config: {}, model: vus(9), model_text: 'closed, 9 VUs', dataset_path: null, dataset_hash: null, shard: null }, []);
    results.close();
    const out = path.join(tmp, 'merged.sqlite');
    expect(() => mergeShards([a.file, b.file], out)).toThrow(/is not a shard/);
    const merged = mergeShards([a.file, b.file], out, { runIds: [a.runId, b.runId] });
    expect(merged.status).toBe('interrupted');
    expect(JSON.parse(readMerged(out).run.model_json)).toEqual(vus(5));
  });

  it('adds the shards’ outcomes; a server that stopped answering every shard stopped answering the test', () => {
    const stop = (answered: number, atS: number) => ({ answered, of: 250, atS, unanswered: 250 - answered });
    const outcome = (ok: number, atS: number | null) => ({ outcomes: { ok, timeout: 250 - ok }, scheduled: 250, sent: 250, answered: ok, achievedRps: ok / 5, sentRps: 50, stoppedAnswering: atS === null ? null : stop(ok, atS) });
    const read = (out: string) => {
      const results = ResultsStore.open(out, { readonly: true });
      const store = new LoadStore(results);
      const rows = store.servers(store.runs().at(-1)!.id);
      results.close();
      return JSON.parse(rows[0].outcome_json!);
    };
    const a = writeShard({ name: 'a.sqlite', shard: '1/2', outcome: outcome(6, 0.12) });
    const b = writeShard({ name: 'b.sqlite', shard: '2/2', outcome: outcome(7, 0.2) });
    const both = path.join(tmp, 'stopped.sqlite');
    mergeShards([a.file, b.file], both);
    const merged = read(both);
    expect(merged.outcomes).toEqual({ ok: 13, timeout: 487 });
    expect(merged.scheduled).toBe(500);
    expect(merged.stoppedAnswering).toEqual({ answered: 13, of: 500, atS: 0.2, unanswered: 487 });
    // One shard still heard it: the test's server did not stop answering.
    const c = writeShard({ name: 'c.sqlite', shard: '2/2', outcome: outcome(240, null) });
    const one = path.join(tmp, 'one-stopped.sqlite');
    mergeShards([a.file, c.file], one);
    expect(read(one).stoppedAnswering).toBeNull();
    expect(read(one).scheduled).toBe(500);
  });

  it('one outage seen by both shards is one outage of the test, from the first shard that found the server gone to the last that heard it again', () => {
    const base = { outcomes: { ok: 200, disconnect: 50 }, scheduled: 250, sent: 250, answered: 200, achievedRps: 40, sentRps: 50, stoppedAnswering: null };
    const at = (startS: number, endS: number | null) => ({ startS, endS, startMs: 1e12 + startS * 1000, endMs: endS === null ? null : 1e12 + endS * 1000 });
    const a = writeShard({ name: 'oa.sqlite', shard: '1/2', outcome: { ...base, outages: [at(1, 1.5), at(3.2, 5.9)] } });
    const b = writeShard({ name: 'ob.sqlite', shard: '2/2', outcome: { ...base, outages: [at(3.3, 6.1), at(8, null)] } });
    const out = path.join(tmp, 'outages.sqlite');
    mergeShards([a.file, b.file], out);
    const results = ResultsStore.open(out, { readonly: true });
    const store = new LoadStore(results);
    const merged = JSON.parse(store.servers(store.runs().at(-1)!.id)[0].outcome_json!);
    results.close();
    expect(merged.outages).toEqual([at(1, 1.5), at(3.2, 6.1), at(8, null)]);
  });

  it('shards that started 2 s apart (no --start-at): one outage in epoch time, its seconds from the earlier start', () => {
    const base = { outcomes: { ok: 200, disconnect: 50 }, scheduled: 250, sent: 250, answered: 200, achievedRps: 40, sentRps: 50, stoppedAnswering: null };
    const from = (originMs: number) => (startS: number, endS: number | null) => ({ startS, endS, startMs: originMs + startS * 1000, endMs: endS === null ? null : originMs + endS * 1000 });
    const early = from(1e12);
    const late = from(1e12 + 2000);
    // The same outage, from epoch +5 s to +8 s: seconds 5–7 of the early shard, 3–6 of the late one.
    const a = writeShard({ name: 'da.sqlite', shard: '1/2', outcome: { ...base, outages: [early(5, 7)] } });
    const b = writeShard({ name: 'db.sqlite', shard: '2/2', outcome: { ...base, outages: [late(3, 6)] } });
    const out = path.join(tmp, 'outages-apart.sqlite');
    mergeShards([a.file, b.file], out);
    const results = ResultsStore.open(out, { readonly: true });
    const store = new LoadStore(results);
    const merged = JSON.parse(store.servers(store.runs().at(-1)!.id)[0].outcome_json!);
    results.close();
    expect(merged.outages).toEqual([early(5, 8)]);
  });

  it('refuses files that hold no load run, naming them, and leaves no output behind', () => {
    const a = writeShard({ name: 'a.sqlite', shard: '1/2' });
    const text = path.join(tmp, 'notes.txt');
    fs.writeFileSync(text, 'not a database at all, just some words that are long enough\n'.repeat(20));
    const empty = path.join(tmp, 'empty.sqlite');
    ResultsStore.open(empty).close();
    const out = path.join(tmp, 'out', 'merged.sqlite');
    const refusal = (inputs: string[]) => {
      try {
        mergeShards(inputs, out);
      } catch (err) {
        expect(err).toBeInstanceOf(UserError);
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refusal([a.file, text])).toBe(`merge: ${text} is not an electrum-bench results database`);
    expect(refusal([a.file, empty])).toBe(`merge: ${empty} has no load run`);
    expect(refusal([a.file, path.join(tmp, 'nope.sqlite')])).toBe(`merge: ${path.join(tmp, 'nope.sqlite')}: no such file`);
    expect(refusal([a.file, a.file])).toBe(`merge: ${a.file} and ${a.file} are both shard 1/2`);
    expect(refusal([a.file])).toMatch(/^merge: shard 2\/2 missing/);
    expect(fs.existsSync(path.join(tmp, 'out'))).toBe(false);
    expect(() => mergeShards([a.file], a.file)).toThrow(/is both an input and the output/);
  });

  it('refuses shards that are not one whole test, naming the input', () => {
    const out = path.join(tmp, 'merged.sqlite');
    const stages = (d: number[]): LoadModel => ({ kind: 'stages', startRate: 0, stages: d.map((s) => ({ durationMs: s * 1000, target: 100 })) });
    const s1of2 = writeShard({ name: 'one-of-two.sqlite', shard: '1/2' });
    const again = writeShard({ name: 'one-of-two-again.sqlite', shard: '1/2' });
    const s2of3 = writeShard({ name: 'two-of-three.sqlite', shard: '2/3' });
    const s1of3 = writeShard({ name: 'one-of-three.sqlite', shard: '1/3' });
    const vus = writeShard({ name: 'vus.sqlite', shard: '2/2', model: { kind: 'vus', vus: 4, thinkTimeMs: 0 } });
    const st1 = writeShard({ name: 'st1.sqlite', shard: '1/2', model: stages([10, 20]) });
    const st2 = writeShard({ name: 'st2.sqlite', shard: '2/2', model: stages([10, 30]) });
    const whole = writeShard({ name: 'whole.sqlite', shard: null });

    expect(() => mergeShards([s1of2.file, again.file], out)).toThrow(new UserError(`merge: ${s1of2.file} and ${again.file} are both shard 1/2`));
    expect(() => mergeShards([s1of3.file, s2of3.file], out)).toThrow(
      new UserError(`merge: shard 3/3 missing (given: ${s1of3.file} (shard 1/3, run 1), ${s2of3.file} (shard 2/3, run 1))`),
    );
    expect(() => mergeShards([s1of2.file, s2of3.file], out)).toThrow(new UserError(`merge: ${s2of3.file} is shard 2/3 but ${s1of2.file} is shard 1/2: shards of different tests`));
    expect(() => mergeShards([s1of2.file, vus.file], out)).toThrow(new UserError(`merge: ${vus.file} ran a different load model than ${s1of2.file}: vus instead of rate`));
    expect(() => mergeShards([st1.file, st2.file], out)).toThrow(
      new UserError(`merge: ${st2.file} ran a different load model than ${st1.file}: stage durations 10s,30s instead of 10s,20s`),
    );
    expect(() => mergeShards([whole.file, s1of2.file], out)).toThrow(
      new UserError(`merge: ${whole.file}: load run 1 is not a shard (it ran without --shard I/N); only the shards of one test merge`),
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('leaves no half-written run when the merge fails midway: no new file, or the old file as it was', () => {
    const a = writeShard({ name: 'a.sqlite', shard: '1/2' });
    const b = writeShard({ name: 'b.sqlite', shard: '2/2', seed: 2, corruptAt: 3 });
    const fresh = path.join(tmp, 'new', 'merged.sqlite');
    expect(() => mergeShards([a.file, b.file], fresh)).toThrow(/^merge: .*b\.sqlite run 1, server alpha, balance ok latency at second 3: unreadable histogram/);
    expect(fs.existsSync(path.join(tmp, 'new'))).toBe(false);

    const existing = path.join(tmp, 'existing.sqlite');
    mergeShards([a.file, writeShard({ name: 'b-good.sqlite', shard: '2/2' }).file], existing);
    expect(() => mergeShards([a.file, b.file], existing)).toThrow(UserError);
    const results = ResultsStore.open(existing, { readonly: true });
    const store = new LoadStore(results);
    expect(store.runs().map((r) => r.id)).toEqual([1]);
    expect((results.db.prepare('SELECT count(*) AS n FROM load_intervals WHERE run_id <> 1').get() as { n: number }).n).toBe(0);
    results.close();
  });
});

/** The wallet load's shards: written as `load --workload --shard I/N` stores them, merged by the same merge. */
describe('mergeShards: a wallet load', () => {
  const server = { name: 'alpha', profile: 'electrumx' as const, host: '127.0.0.1', port: 50001, tls: false };
  const identity = (hold: number) => testIdentity({ workload: 'electrum', hold, server: ['alpha=electrumx@127.0.0.1:50001'], $0: 'load', _: [] }, [server], 'ab'.repeat(32));

  /** A wallet load shard holding `held` wallets (each one stored sync), stored before identities when `test` is null. */
  function writeWalletShard(name: string, shard: string, opts: { held?: number; status?: 'completed' | 'interrupted' | 'aborted'; test?: TestIdentity | null; summary?: Partial<ServerLoadSummary> } = {}): string {
    const file = path.join(tmp, name);
    const results = ResultsStore.open(file);
    const store = new WalletStore(results);
    const held = opts.held ?? 2;
    const test = opts.test === undefined ? identity(4) : (opts.test ?? undefined);
    const { runId, serverIds } = store.createRun(
      { kind: 'load', tool_version: 't', git_commit: null, config: { workload: 'electrum', hold: held, shard, test }, workload: 'electrum', wallets_path: 'w.jsonl', wallets_hash: 'ab'.repeat(32), passes: null, warmup: null },
      [{ name: 'alpha', profile: 'electrumx', url: 'tcp://127.0.0.1:50001', software: 'ElectrumX 1.16', protocol: '1.4' }],
    );
    for (let w = 0; w < held; w++) {
      store.addSync(runId, { serverId: serverIds.get('alpha')!, wallet: `${name}-w${w}`, pass: 0, warmup: false, scripts: 30, expectedTxs: 1, durationNs: 5_000_000n, status: 'ok', samples: [] });
    }
    const summary: ServerLoadSummary = { server: 'alpha', held, holdFailed: 0, holdSeconds: 3, rssPerHeldKiB: null, arrivals: null, notify: null, reconnects: null, loopDelayP99Ms: 1, ...opts.summary };
    store.finishRun(runId, opts.status ?? 'completed', { servers: [summary], setups: {} });
    results.close();
    return file;
  }

  it('puts the shards back into one run: every held wallet and its sync, with the test they ran', () => {
    const a = writeWalletShard('wa.sqlite', '1/2', { held: 2 });
    const b = writeWalletShard('wb.sqlite', '2/2', { held: 3 });
    const out = path.join(tmp, 'wallets.sqlite');
    const merged = mergeWalletShards([b, a], out, { config: { coordinated: { shards: 2 } } });
    expect(merged.status).toBe('completed');
    expect(merged.summaries.map((s) => [s.server, s.held])).toEqual([['alpha', 5]]);
    const results = ResultsStore.open(out, { readonly: true });
    const run = new ResultsReader(results).walletRuns().at(-1)!;
    expect((results.db.prepare('SELECT count(*) AS n FROM wallet_syncs WHERE run_id = ?').get(run.id) as { n: number }).n).toBe(5);
    const config = JSON.parse(run.config_json);
    results.close();
    expect(config.test).toEqual(identity(4));
    expect(config.shard).toBeUndefined();
    expect(config.merge.map((m: { shard: string }) => m.shard)).toEqual(['1/2', '2/2']);
  });

  it("the hold's failures add up by category, and it stopped answering the test only if it stopped answering every shard that synced", () => {
    const stopped = (answered: number, atS: number) => {
      const stop = { answered, of: answered + 11, atS, unanswered: 9 };
      return { holdFailed: 11, holdFailures: { timeout: 10, disconnect: 1 }, stoppedAnswering: stop };
    };
    const both = mergeWalletShards([writeWalletShard('ws1.sqlite', '1/2', { summary: stopped(2, 1.5) }), writeWalletShard('ws2.sqlite', '2/2', { summary: stopped(3, 2.25) })], path.join(tmp, 'w-stopped.sqlite'));
    const both5of27 = { answered: 5, of: 27, atS: 2.25, unanswered: 18 };
    expect(both.summaries[0]).toMatchObject({ holdFailed: 22, holdFailures: { timeout: 20, disconnect: 2 }, stoppedAnswering: both5of27 });
    const one = mergeWalletShards([writeWalletShard('wo1.sqlite', '1/2', { summary: stopped(2, 1.5) }), writeWalletShard('wo2.sqlite', '2/2', { summary: { stoppedAnswering: null } })], path.join(tmp, 'w-one-stopped.sqlite'));
    expect(one.summaries[0].stoppedAnswering).toBeNull();
    // A shard stored before the failures were kept by category: the test's are not known by category either.
    const old = mergeWalletShards([writeWalletShard('wold1.sqlite', '1/2', { summary: stopped(2, 1.5) }), writeWalletShard('wold2.sqlite', '2/2', { summary: { holdFailed: 3 } })], path.join(tmp, 'w-old.sqlite'));
    expect(old.summaries[0].holdFailed).toBe(14);
    expect(old.summaries[0].holdFailures).toBeUndefined();
    expect(old.summaries[0].stoppedAnswering).toBeUndefined();
    // A shard that synced nothing had nothing to answer: the other's stop is the test's.
    const idle = mergeWalletShards([writeWalletShard('wi1.sqlite', '1/2', { summary: stopped(2, 1.5) }), writeWalletShard('wi2.sqlite', '2/2', { held: 0, summary: { stoppedAnswering: null } })], path.join(tmp, 'w-idle.sqlite'));
    expect(idle.summaries[0].stoppedAnswering).toMatchObject({ answered: 2, atS: 1.5 });
  });

  it('refuses a missing shard, a repeated shard and a shard of another test, naming them, and writes nothing', () => {
    const one = writeWalletShard('w1of3.sqlite', '1/3');
    const three = writeWalletShard('w3of3.sqlite', '3/3');
    const first = writeWalletShard('w1of2.sqlite', '1/2');
    const again = writeWalletShard('w1of2-again.sqlite', '1/2');
    const more = writeWalletShard('w2of2-hold8.sqlite', '2/2', { test: identity(8) });
    const out = path.join(tmp, 'none', 'wallets.sqlite');
    expect(refusal(() => mergeWalletShards([one, three], out))).toBe(`merge: shard 2/3 missing (given: ${one} (shard 1/3, run 1), ${three} (shard 3/3, run 1))`);
    expect(refusal(() => mergeWalletShards([first, again], out))).toBe(`merge: ${first} and ${again} are both shard 1/2`);
    expect(refusal(() => mergeWalletShards([first, more], out))).toBe(`merge: ${more} ran --hold 8, ${first} --hold 4: shards of different tests`);
    expect(fs.existsSync(path.join(tmp, 'none'))).toBe(false);
  });

  it('refuses a mix of request and wallet shards', () => {
    const wallet = writeWalletShard('wmix.sqlite', '2/2');
    const request = writeShard({ name: 'rmix.sqlite', shard: '1/2' });
    const out = path.join(tmp, 'mix.sqlite');
    expect(refusal(() => mergeShards([request.file, wallet], out))).toBe(
      `merge: ${wallet} holds a wallet load's shard (load --workload), ${request.file} a request load's shard: shards of different tests`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('one status rule for both kinds: a shard interrupted and a shard aborted make an aborted test; a shard still running, an interrupted one', () => {
    const wallets = mergeWalletShards([writeWalletShard('wi.sqlite', '1/2', { status: 'interrupted' }), writeWalletShard('wab.sqlite', '2/2', { status: 'aborted' })], path.join(tmp, 'w-status.sqlite'));
    const requests = mergeShards([writeShard({ name: 'ri.sqlite', shard: '1/2', status: 'interrupted' }).file, writeShard({ name: 'rab.sqlite', shard: '2/2', status: 'aborted' }).file], path.join(tmp, 'r-status.sqlite'));
    expect([wallets.status, requests.status]).toEqual(['aborted', 'aborted']);
    const stored = (file: string) => {
      const results = ResultsStore.open(file, { readonly: true });
      const { status } = results.db.prepare('SELECT status FROM runs ORDER BY id DESC LIMIT 1').get() as { status: string };
      results.close();
      return status;
    };
    expect([stored(path.join(tmp, 'w-status.sqlite')), stored(path.join(tmp, 'r-status.sqlite'))]).toEqual(['aborted', 'aborted']);
    // A wallet shard whose process died (still "running" in its database) never finished: interrupted.
    const dead = path.join(tmp, 'wdead.sqlite');
    const results = ResultsStore.open(dead);
    new WalletStore(results).createRun(
      { kind: 'load', tool_version: 't', git_commit: null, config: { workload: 'electrum', shard: '2/2', test: identity(4) }, workload: 'electrum', wallets_path: 'w.jsonl', wallets_hash: 'ab'.repeat(32), passes: null, warmup: null },
      [{ name: 'alpha', profile: 'electrumx', url: 'tcp://127.0.0.1:50001', software: null, protocol: null }],
    );
    results.close();
    expect(mergeWalletShards([writeWalletShard('wc.sqlite', '1/2'), dead], path.join(tmp, 'w-dead.sqlite')).status).toBe('interrupted');
  });

  it('compares shards stored before identities by workload and servers, and says so', () => {
    const notes: string[] = [];
    const a = writeWalletShard('wold1.sqlite', '1/2', { test: null });
    const b = writeWalletShard('wold2.sqlite', '2/2', { test: null });
    expect(mergeWalletShards([a, b], path.join(tmp, 'wold.sqlite'), { onNote: (n) => notes.push(n) }).status).toBe('completed');
    expect(notes).toEqual([`${a}, ${b} were stored before shards recorded their test's options: compared by their workload and servers only`]);
  });
});

describe('mergeShards: request shards stored before identities', () => {
  it('are compared by model and servers, as before, and the merge says so', () => {
    const notes: string[] = [];
    const a = writeShard({ name: 'old1.sqlite', shard: '1/2' });
    const b = writeShard({ name: 'old2.sqlite', shard: '2/2' });
    mergeShards([a.file, b.file], path.join(tmp, 'old.sqlite'), { onNote: (n) => notes.push(n) });
    expect(notes).toEqual([`${a.file}, ${b.file} were stored before shards recorded their test's options: compared by their load model and servers only`]);
  });
});

/** Real shards: `load --shard I/N` against a local responder, each storing its test's identity. */
describe('load merge: shards of different tests', () => {
  const ROOT = path.resolve(__dirname, '..', '..', '..');
  let dir: string;
  let srv: { port: number; close(): void };
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-merge-cli-'));
    srv = await startMisbehavingServerProcess({ nullResults: true });
  });
  afterAll(() => {
    srv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('another --rate or another --mix is refused naming the option and both values; the same test from another path merges', async () => {
    const dataset = path.join(dir, 'd.jsonl');
    writeSyntheticDataset(dataset, 20, 'x');
    // The same content at another path: the dataset is part of the test by its content, not where it lies.
    const copy = path.join(dir, 'elsewhere', 'd.jsonl');
    fs.mkdirSync(path.dirname(copy));
    fs.copyFileSync(dataset, copy);
    // Each shard a process of its own, all at once.
    const shard = (db: string, which: string, extra: string[], data = dataset) =>
      exitOf(spawnCommand('load', ['--server', `generic@127.0.0.1:${srv.port}`, '--dataset', data, '--duration', '1s', '--shard', which, '--db', db, '--no-progress', ...extra], { cwd: ROOT, stdio: 'ignore' }));
    const [a, rate, mix, same] = ['a.sqlite', 'rate.sqlite', 'mix.sqlite', 'same.sqlite'].map((f) => path.join(dir, f));
    const mixed = 'balance=50,history=50';
    expect(
      await Promise.all([shard(a, '1/2', ['--rate', '20']), shard(rate, '2/2', ['--rate', '40']), shard(mix, '2/2', ['--rate', '20', '--mix', mixed]), shard(same, '2/2', ['--rate', '20'], copy)]),
    ).toEqual([0, 0, 0, 0]);
    const merge = (inputs: string[], db: string) => cli('load', ['merge', ...inputs, '--db', db]);

    const refused = [await merge([a, rate], path.join(dir, 'bad-rate.sqlite')), await merge([a, mix], path.join(dir, 'bad-mix.sqlite'))];
    expect(refused.map((r) => ({ code: r.code, stderr: r.stderr }))).toEqual([
      { code: 2, stderr: `electrum-bench: merge: ${rate} ran --rate 40, ${a} --rate 20: shards of different tests\n` },
      { code: 2, stderr: `electrum-bench: merge: ${mix} ran --mix "${mixed}", ${a} --mix "balance=40,history=40,utxos=20": shards of different tests\n` },
    ]);
    expect(fs.existsSync(path.join(dir, 'bad-rate.sqlite')) || fs.existsSync(path.join(dir, 'bad-mix.sqlite'))).toBe(false);

    const good = await merge([a, same], path.join(dir, 'all.sqlite'));
    expect({ code: good.code, stderr: good.stderr }).toEqual({ code: 0, stderr: '' });
  }, 120_000);
});
