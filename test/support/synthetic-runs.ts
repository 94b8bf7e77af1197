/**
 * Synthetic results databases written through the stores the CLIs use: a load run (two servers, a
 * one-minute ramp, errors, dropped requests, a find-max search) and a bench run, for the report's
 * and the verdicts' tests; no server, no lab.
 */
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { ResultsStore } from '../../src/store/results';
import { computeStatistics } from '../../src/store/statistics';
import { LoadStore } from '../../src/store/load-results';
import type { IntervalCell } from '../../src/core/load-types';
import type { MethodName } from '../../src/core/methods';
import { executorFor } from '../../src/engine/executors/registry';
import type { LoadModel } from '../../src/engine/executors/registry';

export const INTERVALS = 60;
const MODEL: LoadModel = { kind: 'stages', startRate: 10, stages: [{ durationMs: INTERVALS * 1000, target: 10 * (INTERVALS + 1) }] };
export const SERVERS = ['alpha', 'beta'] as const;
const METHODS: MethodName[] = ['balance', 'history', 'utxos'];

/** A deterministic stream in [0, 1): the same database on every run of the test. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface Written {
  runId: number;
  /** Every ok latency written, µs, per server: the exact percentiles the model must approximate. */
  okUs: Record<string, number[]>;
  replies: Record<string, number[]>; // per interval: ok + error replies
  dropped: Record<string, number>;
  errors: Record<string, Record<string, number>>;
}

/**
 * A completed load run of alpha and beta, with what was written for the tests to hold the report to.
 * `slower`: every ok latency times this, from another random stream (another run of a slower server). */
export function writeLoadRun(db: string, slower = 1): Written {
  const results = ResultsStore.open(db);
  const store = new LoadStore(results);
  const { runId, serverIds } = store.createRun(
    {
      tool_version: '0.0.0-test',
      git_commit: null,
      config: { note: 'synthetic' },
      model: MODEL,
      model_text: executorFor(MODEL).describe(MODEL),
      dataset_path: 'datasets/synthetic.jsonl',
      dataset_hash: null,
      shard: null,
    },
    SERVERS.map((name, i) => ({ name, profile: i === 0 ? 'electrumx' : 'electrs', url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null })),
  );
  const written: Written = { runId, okUs: {}, replies: {}, dropped: {}, errors: {} };
  const t0 = Date.UTC(2026, 10, 24, 12, 0, 0);
  SERVERS.forEach((server, si) => {
    const next = random(17 + si + (slower === 1 ? 0 : 1000));
    written.okUs[server] = [];
    written.replies[server] = [];
    written.dropped[server] = 0;
    written.errors[server] = {};
    for (let i = 0; i < INTERVALS; i++) {
      const target = 10 * (i + 1);
      const cells: IntervalCell[] = [];
      let replies = 0;
      let sent = 0;
      for (const [mi, method] of METHODS.entries()) {
        const ok = Math.round(target / 3) + mi;
        const h = build({ numberOfSignificantValueDigits: 3 });
        for (let k = 0; k < ok; k++) {
          // beta slows down as the rate climbs, with an occasional long tail
          const us = Math.round(slower * ((si === 0 ? 800 : 1500 + 40 * i) * (1 + 3 * next()) + (next() < 0.01 ? 200_000 * next() : 0)));
          h.recordValue(us);
          written.okUs[server].push(us);
        }
        cells.push({ method, outcome: 'ok', count: ok, bytes: ok * 120, latency: encodeIntoCompressedBase64(h), service: encodeIntoCompressedBase64(h) });
        replies += ok;
        sent += ok;
      }
      if (server === 'beta' && i >= 40 && i < 45) {
        const timeouts = 2 + (i % 3);
        const eh = build({ numberOfSignificantValueDigits: 3 });
        for (let k = 0; k < timeouts; k++) eh.recordValue(30_000_000);
        cells.push({ method: 'history', outcome: 'timeout', count: timeouts, bytes: 0, latency: encodeIntoCompressedBase64(eh), service: encodeIntoCompressedBase64(eh) });
        written.errors[server].timeout = (written.errors[server].timeout ?? 0) + timeouts;
        // Timeouts and disconnects are no answers: they are not part of the achieved rate.
        sent += timeouts;
        if (i === 42) {
          cells.push({ method: 'balance', outcome: 'disconnect', count: 1, bytes: 0, latency: null, service: null });
          written.errors[server].disconnect = 1;
          sent += 1;
        }
      }
      let dropped = 0;
      if (server === 'beta' && i >= 50) {
        dropped = i - 45;
        cells.push({ method: 'utxos', outcome: 'dropped', count: dropped, bytes: 0, latency: null, service: null });
        written.dropped[server] += dropped;
      }
      written.replies[server].push(replies);
      store.addInterval(runId, serverIds.get(server)!, {
        server,
        index: i,
        startMs: t0 + si * 120_000 + i * 1000,
        lengthMs: 1000,
        targetRate: target,
        vus: null,
        sent,
        dropped,
        inFlight: 3,
        lag: null,
        loopDelayP99Us: 900,
        cells,
      });
    }
  });
  store.finishRun(runId, {
    status: 'completed',
    generatorBound: true,
    generator: {
      alpha: { lagP99Us: 200, lagMaxUs: 900, loopDelayP99Ms: 1.2, cpuUtilisation: 0.3, atRisk: 3, judged: 1000, bound: false, reasons: [] },
      beta: { lagP99Us: 2100, lagMaxUs: 9000, loopDelayP99Ms: 3, cpuUtilisation: 0.9, atRisk: 420, judged: 1000, bound: true, reasons: ['scheduling lag p99 2.1 ms > 1 ms'] },
    },
    thresholds: [
      { threshold: 'latency:p(99)<250', server: 'alpha', pass: true },
      { threshold: 'latency:p(99)<250', server: 'beta', pass: false },
    ],
    findMax: SERVERS.map((server, si) => ({
      server,
      slo: { percentile: 99, thresholdMs: 20 },
      steps: [100, 200, 400, 800].map((rate, step) => ({
        step,
        targetRate: rate,
        achievedRate: rate * (si === 0 ? 0.99 : 0.97 - 0.05 * step),
        p50Ms: 2 + step * (si + 1),
        p99Ms: 5 + step * step * 4 * (si + 1),
        errorRate: step === 3 ? 0.01 : 0,
        passed: 5 + step * step * 4 * (si + 1) <= 20,
      })),
      maxSustainableRate: si === 0 ? 400 : 200,
      ...(si === 1 ? { statement: 'beta: max sustainable throughput 200/s under p99<20ms' } : {}),
    })),
  });
  results.close();
  return written;
}

/** A completed bench run of two servers over five addresses, two passes, one call of electrs timing out. */
export function writeBenchRun(db: string): void {
  const store = ResultsStore.open(db);
  const lines = [1, 3, 9, 27, 81].map((n, i) => ({
    address: null,
    scripthash: i.toString(16).padStart(64, '0'),
    type: 'nonstandard' as const,
    txCount: n,
    utxoCount: Math.ceil(n / 2),
    balance: { confirmed: n * 1000, unconfirmed: 0 },
  }));
  const { runId, serverIds } = store.createRun(
    {
      started_at: '2026-11-24T10:00:00.000Z',
      tool_version: '0.0.0-test',
      git_commit: null,
      node_version: 'v20.0.0',
      host_json: '{}',
      config_json: '{}',
      dataset_id: 'synthetic',
      dataset_path: 'datasets/synthetic.jsonl',
      dataset_hash: '0'.repeat(64),
      dataset_lines: lines.length,
      passes: 2,
      warmup: 0,
      methods: METHODS.join(','),
      call_order: 'address',
    },
    ['electrumx', 'electrs'].map((name, i) => ({ name, profile: name, url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null, banner: null, features_json: null })),
    lines,
  );
  store.setRun(runId);
  for (const [si, serverId] of serverIds.entries()) {
    for (let pass = 0; pass < 2; pass++) {
      for (const [addressIdx, l] of lines.entries()) {
        for (const method of METHODS) {
          const failed = si === 1 && addressIdx === 4 && method === 'history' && pass === 1;
          store.add({
            serverId,
            pass,
            warmup: false,
            addressIdx,
            method,
            atMs: Date.UTC(2026, 10, 24, 10) + pass * 1000 + addressIdx,
            latencyNs: BigInt(Math.round((1 + si) * (0.5 + l.txCount * 0.02 + pass * 0.01) * 1e6)),
            responseBytes: 100,
            resultSize: l.txCount,
            status: failed ? 'timeout' : 'ok',
            error: failed ? 'timed out' : null,
            tipHeight: 500,
            mismatch: null,
          });
        }
      }
    }
  }
  store.flush();
  computeStatistics(store, runId);
  store.finishRun(runId, 'completed', {});
  store.close();
}
