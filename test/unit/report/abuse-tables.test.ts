/**
 * A wallet load with an abuse in the report: one collateral chart per abused server (phases on x;
 * the arrivals' p50/p99, the server's RSS and CPU as stored) and a table of every phase; a server
 * not sampled has no RSS or CPU drawn and says why; one that fell over says so.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../../src/store/results';
import { WalletStore } from '../../../src/store/wallets';
import { AbuseStore } from '../../../src/store/abuse';
import { remote, sampled } from '../../support/abuse-records';
import { reportOptions } from '../../../src/report/options';
import { writeReport } from '../../../src/report/report';

let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-abuse-report-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a wallet load with an abuse on two servers', () => {
  let out: string;
  let runNumber: number;
  let md: string;
  const spec = (i: number) => JSON.parse(fs.readFileSync(path.join(out, `wallet-${runNumber}-abuse-${i}.vl.json`), 'utf8'));

  beforeAll(async () => {
    const db = path.join(tmp, 'abuse.sqlite');
    out = path.join(tmp, 'report');
    const results = ResultsStore.open(db);
    const store = new WalletStore(results);
    const { runId, serverIds } = store.createRun(
      { kind: 'load', tool_version: '0.0.0-test', git_commit: null, config: { workload: 'electrum', hold: 5, rate: 2, durationMs: 24_000 }, workload: 'electrum', wallets_path: 'w.jsonl', wallets_hash: 'a'.repeat(64), passes: null, warmup: null },
      ['alpha', 'beta'].map((name, i) => ({ name, profile: 'electrs', url: `tcp://127.0.0.1:${50001 + i}`, software: null, protocol: null })),
    );
    new AbuseStore(results).add(runId, serverIds, [sampled, remote]);
    store.finishRun(runId, 'completed', { servers: [] });
    runNumber = runId;
    results.close();
    await writeReport(reportOptions({ db, out }));
    md = fs.readFileSync(path.join(out, 'summary.md'), 'utf8');
  });

  test("one collateral chart per abused server: the arrivals' p50 and p99 per phase, the server's RSS and CPU as stored", () => {
    for (const i of [1, 2]) for (const ext of ['png', 'svg', 'vl.json']) expect(fs.statSync(path.join(out, `wallet-${runNumber}-abuse-${i}.${ext}`)).size).toBeGreaterThan(200);
    const values = spec(1).data.values as Array<{ layer: string; phase: string; measure?: string; ms?: number; mib?: number; pct?: number }>;
    const of = (layer: string, f: (v: (typeof values)[number]) => number | string | undefined) => values.filter((v) => v.layer === layer).map((v) => [v.phase, f(v)]);
    expect(of('sync', (v) => `${v.measure} ${v.ms}`)).toEqual([['before', 'p50 2500'], ['before', 'p99 5800'], ['during', 'p50 2200'], ['during', 'p99 9100'], ['after', 'p50 2700'], ['after', 'p99 5000']]);
    expect(of('rss', (v) => v.mib)).toEqual([['before', 20], ['during', 51], ['after', 26]]);
    expect(of('cpu', (v) => v.pct)).toEqual([['before', 15], ['during', 30], ['after', 12]]);
    expect(spec(1).title.subtitle).toEqual(expect.arrayContaining(['stayed up; answered after; normal again after 0.4 s', "held wallets notified of each phase's block: before 5/5, during 3/5, after 5/5"]));
  });

  test('a server not sampled has no RSS or CPU drawn, says why, and one that fell over says so', () => {
    const layers = new Set((spec(2).data.values as Array<{ layer: string }>).map((v) => v.layer));
    expect([...layers]).toEqual(['sync']);
    expect(spec(2).title.subtitle).toEqual(
      expect.arrayContaining(['FELL OVER; did NOT answer after; not recovered by the end', 'server process not sampled: no process known for it', 'notifications per phase: no blocks mined (--notify not given)']),
    );
  });

  test('the table gives every phase of every abused server, – where a figure was not measured', () => {
    const rows = md.split('\n').filter((l) => / \| (before|during|after) \| /.test(l));
    expect(rows).toEqual([
      '| alpha | idle-connections:connections=1000 (10.0 s, from 6.0 s) | before | 12 | 12 | 0 | 2500 | 5800 | 1 | 5/5 | 63 | 15 | 20.0 | 25 | 56 | stayed up; answered after; normal again after 0.4 s |',
      '|  |  | during | 21 | 20 | timeout 1 | 2200 | 9100 | 1 | 3/5 (2 missing) | 20 | 30 | 51.0 | 1026 | 2062 | process: alpha |',
      '|  |  | after | 15 | 15 | 0 | 2700 | 5000 | 1 | 5/5 | 15 | 12 | 26.0 | 25 | 60 |  |',
      '| beta | subscription-flood (10.0 s, from 6.0 s) | before | 12 | 12 | 0 | 2500 | 5800 | – | – | – | – | – | – | – | FELL OVER; did NOT answer after; not recovered by the end |',
      '|  |  | during | 21 | 20 | timeout 1 | 2200 | 9100 | – | – | – | – | – | – | – | process not sampled: no process known for it |',
      '|  |  | after | 15 | 15 | 0 | 2700 | 5000 | – | – | – | – | – | – | – | notifications: no blocks mined (--notify not given) |',
    ]);
  });
});
