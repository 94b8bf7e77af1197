/**
 * Server limits on the lab's real servers, as a benchmark must see them: Esplora's default
 * `--electrum-txs-limit`/`--utxos-limit` (500) refuse the big lab addresses with an error, over
 * Electrum and REST alike; Fulcrum 2.1 with `max_history = 1000` answers get_history above it with
 * [] and no error (measured here: listunspent then lists only mempool outputs, and get_balance a
 * wrong figure), which the bench must record as refused, never as fast successes. `limits` must
 * find each such limit at its configured value, with what the server does past it: Fulcrum's
 * max_clients_per_ip (12 by default: a close without an answer, from 127.0.0.2, as 127.0.0.1 is
 * exempt) and max_history ([]), Esplora's limits (an error), ElectrumX's MAX_SESSIONS (its
 * listeners close: refused). Each server is restarted with the limit under test and then again
 * with the lab's own settings.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeBuilt, labEnv } from './lab/env';
import { labRestartServer } from '../src/lab/lab';
import { BenchMeasure } from '../src/runs/kinds/bench';
import type { ServerTarget } from '../src/servers/targets';
import { ResultsStore } from '../src/store/results';
import { readDataset } from '../src/dataset/line';
import { EsploraRestClient } from '../src/esplora/rest-client';
import { METHOD_RPC } from '../src/core/methods';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { labConfig } from '../src/lab/config';
import { fulcrumConfFile } from '../src/lab/servers/fulcrum';
import { cli } from './support/cli';
import type { StoredFinding } from '../src/store/limit-results';
import type { LimitName } from '../src/core/server-limits';

const ROOT = path.resolve(__dirname, '..');

const env = labEnv();
let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-limits-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Outcome {
  server: string;
  method: string;
  txCount: number;
  utxoCount: number;
  confirmed: number;
  status: string;
  mismatch: number | null;
}

/** One counted pass over the lab dataset; each sample's outcome with its address's dataset sizes. */
async function bench(servers: ServerTarget[], verify = false): Promise<Outcome[]> {
  const db = path.join(tmp, `${servers[0].name}-${Date.now()}.sqlite`);
  const store = ResultsStore.open(db);
  try {
    const result = await new BenchMeasure(
      store,
      {
        servers,
        datasetPath: env.datasetPath,
        methods: ['balance', 'history', 'utxos'],
        passes: 1,
        warmup: 0,
        shuffle: false,
        order: 'address',
        seed: 'limits',
        concurrency: 1,
        timeoutMs: 30_000,
        maxLineBytes: 64 << 20,
        tlsInsecure: false,
        verify,
      },
    ).run(readDataset(env.datasetPath));
    return store.db
      .prepare(
        `SELECT s.name AS server, x.method, a.tx_count AS txCount, a.utxo_count AS utxoCount, a.balance_confirmed AS confirmed, x.status, x.mismatch
           FROM samples x JOIN run_servers s ON s.id = x.server_id JOIN addresses a ON a.run_id = x.run_id AND a.idx = x.address_idx
          WHERE x.run_id = ?`,
      )
      .all(result.runId) as Outcome[];
  } finally {
    store.close();
  }
}

/** `limits` on one server, in this process: each limit probed, by name. */
async function limits(server: string, endpoint: { host: string; port: number }, names: LimitName[], extra: string[] = []): Promise<Map<LimitName, StoredFinding>> {
  const db = path.join(tmp, `limits-${server}-${Date.now()}.sqlite`);
  const args = ['--server', `${server}@${endpoint.host}:${endpoint.port}`, '--dataset', env.datasetPath, '--limits', names.join(','), '--db', db, '--json', ...extra];
  const r = await cli('limits', args);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const out = JSON.parse(r.stdout) as { status: string; servers: Array<{ findings: StoredFinding[] }> };
  expect(out.status).toBe('completed');
  return new Map(out.servers[0].findings.map((f) => [f.limit, f]));
}

/** The dataset's largest history (or UTXO set) at most `limit`, and its smallest above. */
function around(limit: number, size: (l: { txCount: number; utxoCount: number }) => number): { below: number; above: number } {
  const sizes = readDataset(env.datasetPath).lines.map(size).filter((n) => n > 0);
  return { below: Math.max(...sizes.filter((n) => n <= limit)), above: Math.min(...sizes.filter((n) => n > limit)) };
}

describeBuilt('fulcrum', 'Fulcrum with max_history = 1000', () => {
  beforeAll(() => labRestartServer('fulcrum', { settings: { max_history: '1000' } }), 60_000);
  afterAll(() => labRestartServer('fulcrum'), 60_000);

  test('histories above it are refused (history-too-large), never fast successes; no empty or truncated list passes as ok; the rest are ok', async () => {
    const fulcrum = env.electrum.fulcrum!;
    const outcomes = await bench([{ name: 'fulcrum', profile: 'fulcrum', host: fulcrum.host, port: fulcrum.port, tls: false }], true);
    const big = outcomes.filter((o) => o.txCount > 1000);
    const histories = big.filter((o) => o.method === 'history');
    expect(histories.length).toBeGreaterThanOrEqual(3);
    expect(histories.filter((o) => o.status !== 'history-too-large')).toEqual([]);
    // Histories and UTXO lists of big addresses are right or refused, never an empty or truncated ok.
    expect(big.filter((o) => o.method !== 'balance' && o.status === 'ok' && o.mismatch !== 0)).toEqual([]);
    expect(big.filter((o) => o.method === 'utxos' && o.utxoCount > 0 && o.status !== 'ok').length).toBeGreaterThanOrEqual(1);
    // (A balance it gets wrong is nonzero, which no size check can tell from spending: only
    // --verify's exact comparison flags it, as a mismatch.)
    const small = outcomes.filter((o) => o.txCount < 1000);
    expect(small.filter((o) => o.status !== 'ok' || o.mismatch !== 0)).toEqual([]);
  });

  test('limits finds 12 connections from one source address (the 13th closed unanswered) and histories up to 1000 entries ([] past them)', async () => {
    const fulcrum = env.electrum.fulcrum!;
    const found = await limits('fulcrum', fulcrum, ['connections-per-source', 'history-size'], ['--source-addresses', '127.0.0.2']);
    const perSource = found.get('connections-per-source')!;
    expect({ value: perSource.value, past: perSource.past }).toEqual({ value: 12, past: { kind: 'reset' } });
    expect(perSource.recoveryMs).not.toBeNull();
    const history = found.get('history-size')!;
    const { below, above } = around(1000, (l) => l.txCount);
    expect({ value: history.value, past: history.past }).toEqual({ value: below, past: { kind: 'empty' } });
    expect(history.triedUpTo).toBeGreaterThanOrEqual(above);
  }, 300_000);
});

describeBuilt('esplora', "Esplora with its default limits (--electrum-txs-limit 500, --utxos-limit 500)", () => {
  beforeAll(() => labRestartServer('esplora', { settings: { 'electrum-txs-limit': '500', 'utxos-limit': '500' } }), 60_000);
  afterAll(() => labRestartServer('esplora'), 60_000);

  test('over Electrum histories above 500 and UTXO lists above 500 are refused; over REST only UTXO lists (histories page); the rest is ok', async () => {
    const electrum = env.electrum.esplora!;
    const rest = new URL(env.esploraRest!);
    const outcomes = await bench([
      { name: 'esplora', profile: 'esplora', host: electrum.host, port: electrum.port, tls: false },
      { name: 'esplora-rest', profile: 'esplora-rest', host: rest.hostname, port: Number(rest.port), tls: false },
    ]);
    // Measured here: --electrum-txs-limit guards the Electrum port's histories only; --utxos-limit
    // guards listunspent and REST's /utxo alike ("Too many history entries" either way).
    const refused = (o: Outcome) =>
      (o.method === 'utxos' && o.utxoCount > 500) || (o.server === 'esplora' && o.method === 'history' && o.txCount > 500);
    const expected = outcomes.map((o) => ({ ...o, status: refused(o) ? 'history-too-large' : 'ok' }));
    expect(outcomes).toEqual(expected);
    expect(outcomes.filter(refused).length).toBeGreaterThanOrEqual(2 * 4 + 9);
  });

  test('limits finds histories up to 500 entries, then "Too many history entries", and serves again', async () => {
    const found = await limits('esplora', env.electrum.esplora!, ['history-size']);
    const history = found.get('history-size')!;
    const { below } = around(500, (l) => l.txCount);
    expect(history.value).toBe(below);
    // Its error object carries no code.
    expect(history.past).toEqual({ kind: 'error', code: null, message: expect.stringContaining('Too many history entries') });
    expect(history.recoveryMs).not.toBeNull();
  }, 300_000);
});

describe('ElectrumX with MAX_SESSIONS = 20', () => {
  beforeAll(() => labRestartServer('electrumx', { settings: { MAX_SESSIONS: '20' } }), 120_000);
  afterAll(() => labRestartServer('electrumx'), 120_000);

  test('limits finds 20 connections in all, then its listeners close (refused), and it serves again once they are let go', async () => {
    const found = await limits('electrumx', env.electrum.electrumx, ['connections-total']);
    const total = found.get('connections-total')!;
    expect({ value: total.value, past: total.past }).toEqual({ value: 20, past: { kind: 'refused' } });
    expect(total.recoveryMs).not.toBeNull();
  }, 300_000);
});

describeBuilt('esplora', 'Esplora REST paging', () => {
  test('a history is fetched 25 confirmed transactions a page until a short page: floor(n/25)+1 requests', async () => {
    const rest = new URL(env.esploraRest!);
    const client = new EsploraRestClient({ host: rest.hostname, port: Number(rest.port), tls: false, timeoutMs: 30_000, maxSockets: 1 });
    try {
      const lines = readDataset(env.datasetPath).lines;
      const sizes = [lines.find((l) => l.txCount > 25 && l.txCount < 100)!, lines.find((l) => l.txCount === 25), lines.find((l) => l.txCount > 500)!].filter(
        (l): l is NonNullable<typeof l> => l !== undefined,
      );
      expect(sizes.some((l) => l.txCount > 500)).toBe(true);
      for (const line of sizes) {
        const out = await client.call(METHOD_RPC.history, [line.scripthash]);
        const confirmed = (out.result as Array<{ height: number }>).filter((e) => e.height > 0);
        expect({ n: confirmed.length, requests: out.requests }).toEqual({ n: line.txCount, requests: Math.floor(line.txCount / 25) + 1 });
        // In the protocol's order: confirmed entries oldest first.
        expect(confirmed.every((e, i) => i === 0 || e.height >= confirmed[i - 1].height)).toBe(true);
      }
    } finally {
      client.close();
    }
  });
});

describeBuilt('fulcrum', 'a bench --param sweep', () => {
  test('one run per value of the setting, each on a server restarted with it, then the lab setting back', () => {
    const db = path.join(tmp, 'sweep.sqlite');
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'bench.ts'), '--server', 'fulcrum', '--dataset', env.datasetPath, '--passes', '2', '--warmup', '1', '--param', 'max_history=1000,125000', '--db', db, '--no-progress'],
      { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
    );
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    const d = new Database(db, { readonly: true });
    const runs = d.prepare(`SELECT r.id, r.config_json, sum(x.status = 'history-too-large') AS refused FROM runs r JOIN samples x ON x.run_id = r.id GROUP BY r.id ORDER BY r.id`).all() as Array<{
      id: number;
      config_json: string;
      refused: number;
    }>;
    d.close();
    expect(runs.map((x) => JSON.parse(x.config_json).serverSettings)).toEqual([{ max_history: '1000' }, { max_history: '125000' }]);
    expect(runs[0].refused).toBeGreaterThan(0);
    expect(runs[1].refused).toBe(0);
    expect(fs.readFileSync(fulcrumConfFile(labConfig().stateDir), 'utf8')).not.toMatch(/max_history/);
  });
});
