/**
 * Held wallets across a server restart (the misbehaving server closed, every socket with it, and
 * started again on its port): each held wallet connects and syncs again, the losses, the re-holds
 * and the outage are in the run's summary and its report; and a server that never comes back
 * does not keep a stopped run waiting.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../../src/store/results';
import { WalletStore } from '../../../src/store/wallets';
import { WalletLoad, type ServerLoadSummary } from '../../../src/wallet/load';
import { electrumWorkload } from '../../../src/wallet/workloads/electrum';
import { reportOptions } from '../../../src/report/options';
import { readModels } from '../../../src/report/report';
import { walletLoadTable } from '../../../src/report/wallet-tables';
import { outageText } from '../../../src/core/outages';
import { unusedWallet } from '../../support/unused-wallet';
import { restartMisbehavingServer, startMisbehavingServer, type Misbehaving } from '../../support/misbehaving-server';

const wallet = unusedWallet;
const HELD = 6;

let dir: string;
const servers: Misbehaving[] = [];
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-rehold-'))));
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A wallet load holding HELD wallets while wallets arrive for `durationMs`; `held` resolves once they are held. */
function holding(port: number, durationMs: number) {
  const db = path.join(dir, `${Math.random()}.sqlite`);
  const results = ResultsStore.open(db);
  const store = new WalletStore(results);
  const target = { name: 's', profile: 'generic' as const, host: '127.0.0.1', port, tls: false };
  const { runId, serverIds } = store.createRun(
    { kind: 'load', tool_version: 't', git_commit: null, config: {}, workload: 'electrum', wallets_path: 'w', wallets_hash: 'h', passes: null, warmup: null },
    [{ name: 's', profile: 'generic', url: 'tcp://127.0.0.1', software: null, protocol: null }],
  );
  let isHeld: () => void;
  const held = new Promise<void>((r) => (isHeld = r));
  const load = new WalletLoad(
    {
      servers: [target],
      workload: electrumWorkload,
      wallets: [wallet],
      connection: { timeoutMs: 1000 },
      hold: HELD,
      holdConcurrency: 4,
      rate: 1,
      durationMs,
      log: (line) => {
        if (/wallets held in/.test(line)) isHeld();
      },
    },
    store,
    runId,
    serverIds,
  );
  const done = load.runServer(target).then((summary: ServerLoadSummary) => {
    store.finishRun(runId, 'completed', { servers: [summary] });
    results.close();
    return summary;
  });
  return { load, held, done, db };
}

test('held wallets across a restart: every one lost is held again, and the loss, the re-holds and the outage are recorded', async () => {
  const first = await startMisbehavingServer({ nullResults: true });
  servers.push(first);
  const run = holding(first.port, 5000);
  await run.held;
  const { second, closedAt, backAt } = await restartMisbehavingServer(first, { nullResults: true }, 1200);
  servers.push(second);
  const summary = await run.done;
  const r = summary.reconnects!;
  expect(summary.held).toBe(HELD);
  expect(r).toMatchObject({ lost: HELD, reheld: HELD, stillLost: 0 });
  expect(r.failedAttempts).toBeGreaterThanOrEqual(1);
  // The wallets syncing at once (4) dial at the loss; then one attempt per backoff step (100, 200,
  // 400, 800 ms: four in 1.2 s down) shared by all, not one per wallet and step (6 × 4).
  expect(r.failedAttempts).toBeLessThanOrEqual(4 + 5);
  // Held again within the backoff's last step (1 s) and the syncs after the server's return (each
  // about a second: the electrum workload's send buffer).
  expect(r.reholdMaxMs!).toBeLessThan(backAt - closedAt + 4000);
  expect(r.reholdP50Ms!).toBeGreaterThanOrEqual(1200);
  expect(r.outages).toHaveLength(1);
  const [o] = r.outages;
  expect(o.startMs).toBeGreaterThanOrEqual(closedAt);
  expect(o.endMs!).toBeGreaterThanOrEqual(backAt);
  expect(o.endMs!).toBeLessThan(backAt + 2500);
  // Every held wallet connected again to the new server (besides the arrivals).
  expect(second.connections).toBeGreaterThanOrEqual(HELD);

  const [report] = readModels(reportOptions({ db: run.db, out: dir })).wallet!.runs;
  const table = walletLoadTable(report);
  const cell = table.rows[0][table.head.indexOf('held connections lost')];
  expect(cell).toContain(`${HELD} held connections lost, ${HELD} held again`);
  expect(cell).toContain(outageText(o));
}, 30_000);

test('a server that never comes back: a stop ends the run within 2 s, the wallets still lost and the outage still open said so', async () => {
  const gone = await startMisbehavingServer({ nullResults: true });
  const run = holding(gone.port, 20_000);
  await run.held;
  await gone.close();
  await wait(1500);
  const stopAt = Date.now();
  run.load.stop();
  const summary = await run.done;
  expect(Date.now() - stopAt).toBeLessThan(2000);
  expect(summary.reconnects).toMatchObject({ lost: HELD, reheld: 0, stillLost: HELD });
  expect(summary.reconnects!.outages).toHaveLength(1);
  expect(summary.reconnects!.outages[0].endMs).toBeNull();
}, 30_000);
