/**
 * `limits` probes against a deliberately limited server (test/support/limited-server.ts): each
 * limit it sets is found at its value with what it does past it, a limit it does not set is "none
 * up to" the plan's bound, findings already known are not probed again, and a stop ends a probe
 * waiting on a silent server within 2 s.
 */
import { carriesOver, probeLimits, type LimitsPlan } from '../../../src/limits/prober';
import type { LimitFinding, LimitName } from '../../../src/core/server-limits';
import { startLimitedServer, type Limited } from '../../support/limited-server';

const PLAN: LimitsPlan = {
  limits: ['connections-per-source', 'connections-total', 'subscriptions-per-connection', 'batch-size', 'request-line-bytes'],
  sourceAddresses: ['127.0.0.2', '127.0.0.3', '127.0.0.4'],
  maxConnectionsPerSource: 20,
  maxConnections: 30,
  maxSubscriptions: 500,
  maxBatch: 300,
  maxRequestBytes: 64 * 1024,
  maxResponseBytes: 1 << 20,
  maxProbes: 40,
  secondsPerLimit: 20,
  recoveryWithinMs: 2000,
  timeoutMs: 2000,
  maxLineBytes: 1 << 20,
  dataset: null,
};

async function probe(server: Limited, plan: Partial<LimitsPlan> = {}, known = new Map<LimitName, LimitFinding>()): Promise<Map<LimitName, LimitFinding>> {
  const found = new Map<LimitName, LimitFinding>();
  await probeLimits({ host: '127.0.0.1', port: server.port }, { ...PLAN, ...plan }, { known, signal: new AbortController().signal, found: (f) => found.set(f.limit, f), log: () => undefined });
  return found;
}

test('each limit the server sets is found at its value, with what it does past it and a recovery', async () => {
  const server = await startLimitedServer({ perSource: 5, batch: 40, lineBytes: 10_000, subscriptions: 123 });
  try {
    const found = await probe(server);
    const shape = (l: LimitName) => ({ value: found.get(l)!.value, past: found.get(l)!.past });
    expect(shape('connections-per-source')).toEqual({ value: 5, past: { kind: 'reset' } });
    // Spread over three sources, at most five each: no limit in all below that.
    expect(found.get('connections-total')).toMatchObject({ value: null, triedUpTo: 15, past: null });
    expect(shape('subscriptions-per-connection')).toEqual({ value: 123, past: { kind: 'error', code: 5, message: 'too many subscriptions' } });
    expect(shape('batch-size')).toEqual({ value: 40, past: { kind: 'error', code: 4, message: 'batch too large' } });
    // Lines are probed in steps of 256 bytes: the largest step at most 10,000.
    expect(shape('request-line-bytes')).toEqual({ value: 9984, past: { kind: 'error', code: 3, message: 'line too long' } });
    for (const l of ['connections-per-source', 'subscriptions-per-connection', 'batch-size', 'request-line-bytes'] as const) expect([l, found.get(l)!.recoveryMs]).toEqual([l, expect.any(Number)]);
  } finally {
    await server.close();
  }
}, 60_000);

test('a server without limits: "none up to" each bound; a finding already known is not probed again', async () => {
  const server = await startLimitedServer({});
  try {
    const known = new Map<LimitName, LimitFinding>([['connections-per-source', { limit: 'connections-per-source', value: 7, triedUpTo: 8, past: { kind: 'reset' }, recoveryMs: 1, source: 'measured' }]]);
    const found = await probe(server, { limits: ['connections-per-source', 'batch-size'], maxBatch: 100 }, known);
    expect([...found.keys()]).toEqual(['batch-size']);
    expect(found.get('batch-size')).toMatchObject({ value: null, triedUpTo: 100, past: null, recoveryMs: null });
  } finally {
    await server.close();
  }
}, 60_000);

/** Probes `server` under `plan`, stopped `afterMs` in: how long the probe took, and what it found. */
async function stoppedProbe(server: Limited, plan: Partial<LimitsPlan>, afterMs: number): Promise<{ tookMs: number; found: LimitFinding[] }> {
  const stop = new AbortController();
  const found: LimitFinding[] = [];
  const started = Date.now();
  setTimeout(() => stop.abort(), afterMs);
  await probeLimits({ host: '127.0.0.1', port: server.port }, { ...PLAN, ...plan, timeoutMs: 30_000 }, { known: new Map(), signal: stop.signal, found: (f) => found.push(f), log: () => undefined });
  return { tookMs: Date.now() - started, found };
}

test('a stop ends a probe waiting on a silent server within 2 s, and finds nothing', async () => {
  const server = await startLimitedServer({ silent: true });
  try {
    const { tookMs, found } = await stoppedProbe(server, {}, 200);
    expect(tookMs).toBeLessThan(2000);
    expect(found).toEqual([]);
  } finally {
    await server.close();
  }
});

test('a stop ends a probe whose call, after the handshake, waits on the server within 2 s', async () => {
  const server = await startLimitedServer({ versionOnly: true });
  try {
    const { tookMs, found } = await stoppedProbe(server, { limits: ['subscriptions-per-connection'] }, 300);
    expect(tookMs).toBeLessThan(2000);
    expect(found).toEqual([]);
  } finally {
    await server.close();
  }
}, 40_000);

test('a rerun takes over a limit found, never one cut short, and "none up to N" only when its plan would try no further', () => {
  const none = (limit: LimitFinding['limit'], triedUpTo: number, note?: string): LimitFinding => ({ limit, value: null, triedUpTo, past: null, recoveryMs: null, source: 'measured', ...(note ? { note } : {}) });
  expect(carriesOver({ ...none('batch-size', 40), value: 40, past: { kind: 'reset' }, recoveryMs: 1 }, { ...PLAN, maxBatch: 4096 })).toBe(true);
  expect(carriesOver(none('batch-size', 300), PLAN)).toBe(true);
  expect(carriesOver(none('batch-size', 100), PLAN)).toBe(false);
  expect(carriesOver(none('batch-size', 300), { ...PLAN, maxBatch: 4096 })).toBe(false);
  expect(carriesOver(none('batch-size', 300, 'from 127.0.0.2; cut short'), PLAN)).toBe(false);
  expect(carriesOver({ ...none('batch-size', 40, 'server.ping requests; between 30 and 40 (cut short)'), value: 30 }, PLAN)).toBe(false);
  expect(carriesOver(none('request-line-bytes', 64 * 1024), PLAN)).toBe(true);
  expect(carriesOver(none('request-line-bytes', 32 * 1024), PLAN)).toBe(false);
  // Connections in all from 3 sources, each capped at a per-source limit of 3 found: 9 is all a plan tries.
  const perSource = new Map<LimitName, LimitFinding>([['connections-per-source', { ...none('connections-per-source', 4), value: 3 }]]);
  expect(carriesOver(none('connections-total', 9), PLAN, perSource)).toBe(true);
  expect(carriesOver(none('connections-total', 9), PLAN)).toBe(false);
  // Sizes from the dataset: a larger dataset tries further.
  const lines = (n: number) => [{ txCount: n, utxoCount: 1 }] as unknown as LimitsPlan['dataset'];
  expect(carriesOver(none('history-size', 120), { ...PLAN, dataset: lines(120) })).toBe(true);
  expect(carriesOver(none('history-size', 120), { ...PLAN, dataset: lines(500) })).toBe(false);
});

test('connections in all from one source go up to the plan\'s total when no per-source limit is known, and say what they cannot tell apart', async () => {
  const server = await startLimitedServer({ perSource: 25 });
  try {
    const found = await probe(server, { limits: ['connections-total'], sourceAddresses: ['127.0.0.2'], maxConnectionsPerSource: 20, maxConnections: 30 });
    expect(found.get('connections-total')).toMatchObject({ value: 25, triedUpTo: 26 });
    expect(found.get('connections-total')!.note).toContain('a per-source limit would read as this one');
  } finally {
    await server.close();
  }
}, 60_000);
