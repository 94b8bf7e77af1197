/**
 * Answers too small for the dataset are never fast successes: the check itself, and what the bench
 * and the load engine record against a server that answers every address as empty (Fulcrum's way
 * above its max_history).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { answerSizeProblem } from '../../../src/servers/answer-size';
import { PROFILES } from '../../../src/servers/profiles';
import type { DatasetLine } from '../../../src/core/dataset-line';
import { BenchMeasure } from '../../../src/runs/kinds/bench';
import { LoadRunner } from '../../../src/engine/runner';
import { ResultsStore } from '../../../src/store/results';
import { readDataset } from '../../../src/dataset/line';
import { startMisbehavingServer } from '../../support/misbehaving-server';
import { loadOptions, localTarget } from '../../support/load-options';

const line = (txCount: number, utxoCount = 2, confirmed = 5000): DatasetLine => ({
  address: null,
  scripthash: createHash('sha256').update(`a${txCount}`).digest('hex'),
  type: 'nonstandard',
  txCount,
  utxoCount,
  balance: { confirmed, unconfirmed: 0 },
});
const entries = (confirmed: number, mempool = 0) => [
  ...Array.from({ length: confirmed }, (_, i) => ({ tx_hash: 'aa', height: 100 + i })),
  ...Array.from({ length: mempool }, () => ({ tx_hash: 'bb', height: 0 })),
];

describe('answerSizeProblem', () => {
  const generic = PROFILES.generic;
  const fulcrum = PROFILES.fulcrum;

  test('a history shorter than the dataset is wrong-size; as long or longer (growth) is fine', () => {
    expect(answerSizeProblem(generic, 'history', entries(9), line(10))?.category).toBe('wrong-size');
    // Mempool entries do not make up for missing confirmed ones.
    expect(answerSizeProblem(generic, 'history', entries(9, 3), line(10))?.category).toBe('wrong-size');
    expect(answerSizeProblem(generic, 'history', entries(10), line(10))).toBeNull();
    expect(answerSizeProblem(generic, 'history', entries(12, 1), line(10))).toBeNull();
  });

  test('no UTXO or a zero balance where the dataset has funds is wrong-size; where it has none, fine', () => {
    expect(answerSizeProblem(generic, 'utxos', [], line(10, 2))?.category).toBe('wrong-size');
    // Only mempool entries: no confirmed UTXO where the dataset has some (Fulcrum above max_history).
    expect(answerSizeProblem(generic, 'utxos', entries(0, 1), line(10, 2))?.category).toBe('wrong-size');
    expect(answerSizeProblem(generic, 'utxos', [], line(10, 0, 0))).toBeNull();
    expect(answerSizeProblem(generic, 'utxos', entries(1), line(10, 2))).toBeNull();
    expect(answerSizeProblem(generic, 'balance', { confirmed: 0, unconfirmed: 0 }, line(10))?.category).toBe('wrong-size');
    expect(answerSizeProblem(generic, 'balance', { confirmed: 0, unconfirmed: 0 }, line(10, 0, 0))).toBeNull();
    expect(answerSizeProblem(generic, 'balance', { confirmed: 17, unconfirmed: 0 }, line(10))).toBeNull();
  });

  test("Fulcrum's empty answers are its max_history at work only from 1,000 transactions up", () => {
    for (const [method, empty] of [['history', []], ['utxos', []], ['balance', { confirmed: 0, unconfirmed: 0 }]] as const) {
      const big = answerSizeProblem(fulcrum, method, empty, line(1000));
      expect(big?.category).toBe('history-too-large');
      expect(big?.message).toMatch(/max_history/);
      expect(answerSizeProblem(fulcrum, method, empty, line(999))?.category).toBe('wrong-size');
      // Another server's empty answer is never explained by a limit it does not have.
      expect(answerSizeProblem(generic, method, empty, line(5000))?.category).toBe('wrong-size');
    }
    // A short but non-empty history is wrong whatever the server.
    expect(answerSizeProblem(fulcrum, 'history', entries(3), line(5000))?.category).toBe('wrong-size');
  });
});

describe('against a server that answers every address as empty', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-size-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('bench records wrong-size (history-too-large under the Fulcrum profile), never ok', async () => {
    const srv = await startMisbehavingServer({ emptyAnswers: true });
    try {
      const file = path.join(tmp, 'd.jsonl');
      fs.writeFileSync(file, [line(5), line(1500)].map((l) => JSON.stringify(l)).join('\n') + '\n');
      const store = ResultsStore.open(path.join(tmp, 'r.sqlite'));
      const servers = (['generic', 'fulcrum'] as const).map((profile) => ({ name: profile, profile, host: '127.0.0.1', port: srv.port, tls: false }));
      const result = await new BenchMeasure(
        store,
        {
          servers,
          datasetPath: file,
          methods: ['balance', 'history', 'utxos'],
          passes: 2,
          warmup: 1,
          shuffle: false,
          order: 'address',
          seed: 't',
          concurrency: 1,
          timeoutMs: 5000,
          maxLineBytes: 1 << 20,
          tlsInsecure: false,
          verify: false,
        },
      ).run(readDataset(file));
      const rows = store.db
        .prepare(
          `SELECT s.name AS server, a.tx_count AS txCount, x.status AS status, count(*) AS n FROM samples x
             JOIN run_servers s ON s.id = x.server_id JOIN addresses a ON a.run_id = x.run_id AND a.idx = x.address_idx
            WHERE x.run_id = ? GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        )
        .all(result.runId);
      store.close();
      expect(rows).toEqual([
        { server: 'fulcrum', txCount: 5, status: 'wrong-size', n: 6 },
        { server: 'fulcrum', txCount: 1500, status: 'history-too-large', n: 6 },
        { server: 'generic', txCount: 5, status: 'wrong-size', n: 6 },
        { server: 'generic', txCount: 1500, status: 'wrong-size', n: 6 },
      ]);
      // Counted like errors in the summary: no method has a single ok sample.
      expect(result.summaries.every((s) => s.nOk === 0 && (s.errors['wrong-size'] ?? 0) + (s.errors['history-too-large'] ?? 0) === s.n)).toBe(true);
    } finally {
      await srv.close();
    }
  });

  test('load records wrong-size outcomes, not ok', async () => {
    const srv = await startMisbehavingServer({ emptyAnswers: true });
    try {
      const target = localTarget(srv.port);
      // Room for a pause of this process, which holds the server's answers too: nothing dropped.
      const runner = new LoadRunner(loadOptions([target], [line(5)], { model: { kind: 'rate', rate: 50 }, durationMs: 1000, connections: 1, pipeline: 64 }));
      const result = await runner.runServer(target, 0);
      expect(result.totals.byOutcome.get('ok') ?? 0).toBe(0);
      expect(result.totals.byOutcome.get('wrong-size')).toBe(50);
    } finally {
      await srv.close();
    }
  });
});
