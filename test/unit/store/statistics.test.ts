/**
 * The one statistics definition (nearest rank), computed from SQLite in bounded memory and checked
 * against a plain in-memory computation of the same samples.
 */
import { P999_MIN_SAMPLES } from '../../../src/core/percentile-line';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../../src/store/results';
import { coldSummaries, computeStatistics } from '../../../src/store/statistics';
import { isColdPass } from '../../../src/bench/cold-passes';
import { median, percentile, quantileRank, StreamingQuantiles } from '../../../src/core/quantiles';
import { seededRandom } from '../../../src/core/random';

/** A run of 7 addresses on two servers, balance and history, the first of `passes` warm-up. */
function newRun(store: ResultsStore, passes: number, setups: Array<string | null> = [null, null]) {
  const lines = Array.from({ length: 7 }, (_, i) => ({
    address: null,
    scripthash: String(i).padStart(64, '0'),
    type: 'nonstandard' as const,
    txCount: 1,
    utxoCount: 1,
    balance: { confirmed: 1, unconfirmed: 0 },
  }));
  const { runId, serverIds } = store.createRun(
    {
      started_at: 'now',
      tool_version: 't',
      git_commit: null,
      node_version: 'v',
      host_json: '{}',
      config_json: '{}',
      dataset_id: 'd',
      dataset_path: 'd',
      dataset_hash: 'h',
      dataset_lines: lines.length,
      passes,
      warmup: 1,
      methods: 'balance,history',
      call_order: 'address',
    },
    [0, 1].map((i) => ({ name: `s${i}`, profile: 'generic', url: 'tcp://x:1', software: null, protocol: null, banner: null, features_json: null, setup_json: setups[i] })),
    lines,
  );
  return { runId, serverIds, lines };
}

describe('statistics', () => {
  test('nearest rank: an observed value, the lower middle on even counts', () => {
    expect(median([1, 2, 3, 4])).toBe(2);
    expect(median([1, 2, 3])).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    expect(percentile([], 0.5)).toBeNull();
    expect(quantileRank(0.999, 10)).toBe(10);
    const s = new StreamingQuantiles(4, [0.5, 0.99]);
    [10, 20, 30, 40].forEach((v) => s.push(v));
    expect(s.values).toEqual([20, 40]);
    expect(s.max).toBe(40);
  });

  test('computed from SQLite, they equal a plain in-memory computation over the same samples', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-stats-'));
    try {
      const store = ResultsStore.open(path.join(tmp, 'r.sqlite'));
      const { runId, serverIds, lines } = newRun(store, 5);
      store.setRun(runId);
      const rand = seededRandom('stats');
      const kept: Array<{ server: number; method: string; address: number; latency: number; status: string }> = [];
      // 4 counted passes: even counts per address, where two median definitions would differ.
      for (let pass = 0; pass < 5; pass++)
        for (const serverId of serverIds)
          for (const method of ['balance', 'history'])
            for (let a = 0; a < lines.length; a++) {
              const status = rand() < 0.1 ? 'timeout' : 'ok';
              const latency = Math.floor(rand() * 1e6) + 1;
              store.add({ serverId, pass, warmup: pass === 0, addressIdx: a, method, atMs: 0, latencyNs: BigInt(latency), responseBytes: 1, resultSize: 1, status, error: null, tipHeight: null, mismatch: null });
              if (pass > 0) kept.push({ server: serverId, method, address: a, latency, status });
            }
      const summaries = computeStatistics(store, runId);
      for (const s of summaries) {
        const mine = kept.filter((k) => k.server === s.serverId && k.method === s.method);
        const ok = mine.filter((k) => k.status === 'ok').map((k) => k.latency).sort((x, y) => x - y);
        expect(s.n).toBe(mine.length);
        expect(s.nOk).toBe(ok.length);
        expect([s.p50, s.p90, s.p99, s.p999, s.max]).toEqual([percentile(ok, 0.5), percentile(ok, 0.9), percentile(ok, 0.99), ok.length >= P999_MIN_SAMPLES ? percentile(ok, 0.999) : null, ok[ok.length - 1]]);
        // p99.9 under 1,000 samples would be the max under another name (src/core/percentile-line.ts).
        if (ok.length < P999_MIN_SAMPLES) expect(s.p999).toBeNull();
        expect(s.errors.timeout ?? 0).toBe(mine.length - ok.length);
      }
      const medians = store.db.prepare('SELECT server_id, method, address_idx, median_ns, n_ok, n_error FROM medians WHERE run_id = ?').all(runId) as Array<{
        server_id: number;
        method: string;
        address_idx: number;
        median_ns: number | null;
        n_ok: number;
        n_error: number;
      }>;
      expect(medians).toHaveLength(2 * 2 * lines.length);
      for (const m of medians) {
        const mine = kept.filter((k) => k.server === m.server_id && k.method === m.method && k.address === m.address_idx);
        const ok = mine.filter((k) => k.status === 'ok').map((k) => k.latency).sort((x, y) => x - y);
        expect(m.median_ns).toBe(median(ok));
        expect([m.n_ok, m.n_error]).toEqual([ok.length, mine.length - ok.length]);
      }
      store.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('a run with cold passes: the warm figures over the warm passes alone, the cold ones beside them, each as a plain computation gives it', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-stats-cold-'));
    try {
      const store = ResultsStore.open(path.join(tmp, 'r.sqlite'));
      // A warm-up, then cold, warm, cold, warm, cold, warm.
      const { runId, serverIds, lines } = newRun(store, 7);
      store.setRun(runId);
      const rand = seededRandom('stats-cold');
      const kept: Array<{ pass: number; server: number; method: string; address: number; latency: number; status: string; cold: boolean; atMs: number }> = [];
      for (let pass = 0; pass < 7; pass++)
        for (const serverId of serverIds)
          for (const method of ['balance', 'history'])
            for (let a = 0; a < lines.length; a++) {
              const cold = pass > 0 && isColdPass(pass, 1);
              const status = rand() < 0.1 ? 'timeout' : 'ok';
              // Cold calls drawn from a slower range, so a mix-up of the two shows in every figure.
              const latency = Math.floor(rand() * 1e6) + 1 + (cold ? 5e6 : 0);
              // Each address's history call started first, though stored after its balance call.
              const atMs = pass * 1000 + a * 10 + (method === 'history' ? 0 : 1);
              store.add({ serverId, pass, warmup: pass === 0, cold, addressIdx: a, method, atMs, latencyNs: BigInt(latency), responseBytes: 1, resultSize: 1, status, error: null, tipHeight: null, mismatch: null });
              if (pass > 0) kept.push({ pass, server: serverId, method, address: a, latency, status, cold, atMs });
            }
      const warm = computeStatistics(store, runId);
      const cold = coldSummaries(store, runId);
      expect(warm).toHaveLength(4);
      expect(cold).toHaveLength(4);
      const okSorted = (rows: typeof kept) => rows.filter((k) => k.status === 'ok').map((k) => k.latency).sort((x, y) => x - y);
      const warmMedian = (server: number, method: string, address: number) => median(okSorted(kept.filter((k) => !k.cold && k.server === server && k.method === method && k.address === address)));
      for (const w of warm) {
        const mine = kept.filter((k) => !k.cold && k.server === w.serverId && k.method === w.method);
        expect([w.n, w.nOk, w.p50, w.max]).toEqual([mine.length, okSorted(mine).length, percentile(okSorted(mine), 0.5), okSorted(mine).at(-1)]);
      }
      for (const m of store.db.prepare('SELECT server_id, method, address_idx, median_ns FROM medians WHERE run_id = ?').all(runId) as Array<{ server_id: number; method: string; address_idx: number; median_ns: number | null }>) {
        expect(m.median_ns).toBe(warmMedian(m.server_id, m.method, m.address_idx));
      }
      for (const c of cold) {
        const mine = kept.filter((k) => k.cold && k.server === c.serverId && k.method === c.method);
        const ok = okSorted(mine);
        expect([c.n, c.nOk, c.p50, c.p90, c.p99, c.max]).toEqual([mine.length, ok.length, percentile(ok, 0.5), percentile(ok, 0.9), percentile(ok, 0.99), ok.at(-1)]);
        expect(c.errors.timeout ?? 0).toBe(mine.length - ok.length);
        expect(c.warmP50).toBe(warm.find((w) => w.serverId === c.serverId && w.method === c.method)!.p50);
        // Each address's first call (by start time) of each cold pass on its server, where answered
        // and answered in some warm pass too, beside the mean of those warm calls and its warm median.
        const firsts = kept.filter((k) => k.cold && k.atMs === Math.min(...kept.filter((x) => x.cold && x.pass === k.pass && x.server === k.server && x.address === k.address).map((x) => x.atMs)));
        const warmOf = (k: (typeof kept)[number]) => kept.filter((w) => !w.cold && w.status === 'ok' && w.server === k.server && w.method === k.method && w.address === k.address).map((w) => w.latency);
        const touches = firsts.filter((k) => k.server === c.serverId && k.method === c.method && k.status === 'ok' && warmOf(k).length > 0);
        expect(c.firstTouches).toBe(touches.length);
        expect(c.firstTouchSumNs).toBe(touches.reduce((n, k) => n + k.latency, 0));
        expect(c.warmMedianSumNs).toBe(touches.reduce((n, k) => n + warmMedian(k.server, k.method, k.address)!, 0));
        expect(c.warmMeanSumNs).toBe(Math.round(touches.reduce((n, k) => n + warmOf(k).reduce((x, y) => x + y, 0) / warmOf(k).length, 0)));
        // History started first at every address: balance never touches first.
        if (c.method === 'balance') expect(c.firstTouches).toBe(0);
        else expect(c.firstTouches).toBeGreaterThan(2 * lines.length);
      }
      store.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('two targets of one process (Esplora over Electrum and REST) share its cold start: an address is first touched by whichever asked first', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-stats-process-'));
    try {
      const store = ResultsStore.open(path.join(tmp, 'r.sqlite'));
      const oneProcess = JSON.stringify({ process: 'esplora' });
      // A warm-up, then a cold pass and a warm one.
      const { runId, serverIds, lines } = newRun(store, 3, [oneProcess, oneProcess]);
      store.setRun(runId);
      for (let pass = 0; pass < 3; pass++)
        for (const [i, serverId] of serverIds.entries())
          for (const method of ['balance', 'history'])
            for (let a = 0; a < lines.length; a++) {
              // s1 asks first at odd addresses, s0 at even ones; history before balance on each.
              const atMs = pass * 1000 + a * 10 + (i === a % 2 ? 0 : 4) + (method === 'history' ? 0 : 1);
              const latency = 1000 * (a + 1) + (pass === 1 ? 500 : 0) + i;
              store.add({ serverId, pass, warmup: pass === 0, cold: pass === 1, addressIdx: a, method, atMs, latencyNs: BigInt(latency), responseBytes: 1, resultSize: 1, status: 'ok', error: null, tipHeight: null, mismatch: null });
            }
      computeStatistics(store, runId);
      const cold = coldSummaries(store, runId);
      const firsts = (i: number) => Array.from({ length: lines.length }, (_, a) => a).filter((a) => a % 2 === i);
      for (const [i, serverId] of serverIds.entries()) {
        const history = cold.find((c) => c.serverId === serverId && c.method === 'history')!;
        const mine = firsts(i);
        expect([history.firstTouches, history.firstTouchSumNs, history.warmMedianSumNs, history.warmMeanSumNs]).toEqual([
          mine.length,
          mine.reduce((n, a) => n + 1000 * (a + 1) + 500 + i, 0),
          mine.reduce((n, a) => n + 1000 * (a + 1) + i, 0),
          mine.reduce((n, a) => n + 1000 * (a + 1) + i, 0),
        ]);
        expect(cold.find((c) => c.serverId === serverId && c.method === 'balance')!.firstTouches).toBe(0);
      }
      store.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('a run without cold passes has no cold figures', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-stats-warm-'));
    try {
      const store = ResultsStore.open(path.join(tmp, 'r.sqlite'));
      const { runId, serverIds } = newRun(store, 2);
      store.setRun(runId);
      for (const pass of [0, 1]) store.add({ serverId: serverIds[0], pass, warmup: pass === 0, addressIdx: 0, method: 'balance', atMs: 0, latencyNs: 5n, responseBytes: 1, resultSize: 1, status: 'ok', error: null, tipHeight: null, mismatch: null });
      expect(computeStatistics(store, runId)).toEqual([expect.objectContaining({ n: 1, p50: 5 })]);
      expect(coldSummaries(store, runId)).toEqual([]);
      store.close();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
