/**
 * `load --workload --find-max`: the engine's search over wallet arrivals, against the deliberately
 * misbehaving local server. Each step is a segment of the runner whose units are whole syncs: the
 * steps' seconds hold every arrival once, their rows are stored, and a step fails on the server's
 * errors as a request load's does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ResultsStore } from '../../../src/store/results';
import { walletLoadRun } from '../../support/wallet-load-run';
import { WalletLoad } from '../../../src/wallet/load';
import { electrumWorkload } from '../../../src/wallet/workloads/electrum';
import type { AnyIntervalRecord } from '../../../src/core/load-types';
import type { StepResult } from '../../../src/engine/find-max';
import { unusedWallet } from '../../support/unused-wallet';
import { startMisbehavingServer } from '../../support/misbehaving-server';

let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-wallet-find-max-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a server that answers four wallets and then nothing: the first step passes, the next fails on its errors, and every arrival is one outcome in the seconds and one row', async () => {
  // Each sync has a connection of its own: the first four syncs are answered in full whenever their
  // calls come (a count of calls could be taken by a later sync while an earlier one's last calls
  // still wait in its send buffer), and none after them.
  const srv = await startMisbehavingServer({ nullResults: true, answerConnections: 4 });
  const db = path.join(dir, 'search.sqlite');
  const results = ResultsStore.open(db);
  try {
    const { store, target, runId, serverIds } = walletLoadRun(results, srv.port);
    const search = { slo: { percentile: 99, thresholdMs: 5000, text: 'sync p99<5s' }, maxErrorRate: 0.01, dwellMs: 2000, warmupMs: 0, startRate: 2, factor: 2, maxRate: 8, bisectSteps: 0 };
    // Timeouts of 1 s: a pause of this process (which answers too) is not taken for the server's silence.
    const load = new WalletLoad(
      { servers: [target], workload: electrumWorkload, wallets: [unusedWallet], connection: { timeoutMs: 1000 }, hold: 0, holdConcurrency: 1, durationMs: 0, search, log: () => undefined },
      store,
      runId,
      serverIds,
    );
    const seconds: Array<{ record: AnyIntervalRecord; step: number | null }> = [];
    load.runner.on('interval', ({ record, step }: { record: AnyIntervalRecord; step: number | null }) => seconds.push({ record, step }));
    const steps: StepResult[] = [];
    const done = await load.runServers(() => undefined, (_t, s) => steps.push(s));
    expect(done.failure).toBeUndefined();
    const [found] = done.searches;
    expect(found.steps).toEqual(steps);
    expect(steps.map((s) => [s.targetRate, s.passed])).toEqual([
      [2, true],
      [4, false],
    ]);
    expect(steps[1].why).toMatch(/errors\+dropped/);
    expect(found).toMatchObject({ maxSustainableRate: 2, limitedBy: 'server' });
    // The summary's arrivals are the last step's: 8 due, the server silent for every one of them.
    expect(done.summaries[0].arrivals).toMatchObject({ intended: 8, synced: 0, failed: 8, notStarted: 0 });
    // Whether it answered is of every step's arrivals: the first step's four, then none.
    expect(done.summaries[0].searchArrivals).toEqual({ ok: 4, timeout: 8 });
    // Every arrival of every step is in the seconds once, under its step, and stored as one row.
    const unitsOf = (step: number) => seconds.filter((s) => s.step === step).reduce((n, s) => n + s.record.cells.reduce((m, c) => m + c.count, 0), 0);
    expect([unitsOf(0), unitsOf(1)]).toEqual([4, 8]);
    expect(seconds.every((s) => s.record.cells.every((c) => c.method === 'sync'))).toBe(true);
    const rows = new Database(db, { readonly: true });
    try {
      const stored = rows.prepare("SELECT status, COUNT(*) AS n FROM wallet_syncs GROUP BY status ORDER BY status").all();
      expect(stored).toEqual([
        { status: 'ok', n: 4 },
        { status: 'timeout', n: 8 },
      ]);
    } finally {
      rows.close();
    }
  } finally {
    results.close();
    await srv.close();
  }
});
