/**
 * Wallet load's arrivals keep every intended arrival as exactly one outcome (synced, failed by
 * category, not started because the run stopped), and a server that stopped answering is said to
 * have stopped — against the deliberately misbehaving local server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../../src/store/results';
import { walletLoadRun } from '../../support/wallet-load-run';
import { serverStoppedAnswering, WalletLoad, type ServerLoadSummary } from '../../../src/wallet/load';
import { electrumWorkload } from '../../../src/wallet/workloads/electrum';
import { reportOptions } from '../../../src/report/options';
import { readModels } from '../../../src/report/report';
import { walletLoadTable } from '../../../src/report/wallet-tables';
import type { LoadModel } from '../../../src/engine/executors/registry';
import { walletSyncIteration } from '../../../src/wallet/sync-iteration';
import { hold } from '../../../src/engine/executors/hold';
import { RunClock } from '../../../src/engine/run-clock';
import { unusedWallet } from '../../support/unused-wallet';
import { startMisbehavingServer, startMisbehavingServerProcess, type MisbehavingOptions } from '../../support/misbehaving-server';
import { parseAbuseSpec } from '../../../src/engine/abuse/spec';
import type { ServerTarget } from '../../../src/servers/targets';

const wallet = unusedWallet;

let dir: string;
/** The database the last run of `arrivals` wrote. */
let lastDb = '';
let srv: { port: number; close(): unknown } | undefined;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-wallet-load-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

/**
 * A server set to stop answering has its calls time out soon; others get time enough that a pause
 * of this process (a busy machine; the server may share it) is not taken for a timeout.
 */
const stopsAnswering = (o: MisbehavingOptions) => !o.delayMs && (o.answerFirst !== undefined || o.answerConnections !== undefined);

async function arrivals(o: MisbehavingOptions, rate: number | LoadModel, durationMs: number, stopAfterMs?: number, inOwnProcess = false): Promise<NonNullable<ServerLoadSummary['arrivals']>> {
  srv = inOwnProcess ? await startMisbehavingServerProcess(o) : await startMisbehavingServer(o);
  lastDb = path.join(dir, `${Math.random()}.sqlite`);
  const results = ResultsStore.open(lastDb);
  try {
    const { store, target, runId, serverIds } = walletLoadRun(results, srv.port);
    const load = new WalletLoad(
      { servers: [target], workload: electrumWorkload, wallets: [wallet], connection: { timeoutMs: stopsAnswering(o) ? 1000 : 5000 }, hold: 0, holdConcurrency: 1, ...(typeof rate === 'number' ? { rate } : { arrivals: rate }), durationMs, log: () => undefined },
      store,
      runId,
      serverIds,
    );
    if (stopAfterMs !== undefined) setTimeout(() => load.stop(), stopAfterMs);
    const summary = await load.runServer(target);
    store.finishRun(runId, 'completed', { servers: [summary] }); // as \`load --workload\` stores it
    return summary.arrivals!;
  } finally {
    results.close();
  }
}

function expectEveryArrivalOnce(a: NonNullable<ServerLoadSummary['arrivals']>, intended: number): void {
  expect(a.intended).toBe(intended);
  expect(a.synced + a.failed + a.notStarted).toBe(intended);
  expect(Object.values(a.failures).reduce((x, y) => x + y, 0)).toBe(a.failed);
}

test('a server that answers: every arrival synced, none said to have stopped', async () => {
  const a = await arrivals({ nullResults: true }, 10, 1000);
  expectEveryArrivalOnce(a, 10);
  expect(a.synced).toBe(10);
  expect(a.stoppedAnswering).toBeNull();
});

test('a server that answers two wallets’ worth of calls and then nothing: the rest time out, and it is said to have stopped', async () => {
  // 30 subscriptions per sync: the first 60 scripthash calls are the first two wallets'. A sync
  // takes about a second (the electrum workload's last subscriptions wait a second in its send
  // buffer, as Electrum's do): arrivals 1.4 s apart, so the second wallet's sync has ended before
  // the third is due; 7 of them, so 5 go unanswered after the last answer (a stop, not a hiccup).
  const a = await arrivals({ nullResults: true, answerFirst: 60 }, 0.7, 10_000);
  expectEveryArrivalOnce(a, 7);
  expect(a.synced).toBe(2);
  expect(a.failures.timeout).toBe(5);
  expect(a.stoppedAnswering).toMatchObject({ answered: 2, of: 7 });
  expect(a.stoppedAnswering!.atS).toBeLessThan(3.5);
  // Stored with the run, and shown by the report first in the server's row.
  const [run] = readModels(reportOptions({ db: lastDb, out: dir })).wallet!.runs;
  expect(walletLoadTable(run).rows[0][0]).toMatch(/^s: wallet syncs answered 2 of 7, stopped answering at \d\.\d\d s \(5 unanswered after\)$/);
});

test('a stop mid-run: the arrivals not started are counted as such, and all add up', async () => {
  const a = await arrivals({ nullResults: true }, 10, 3000, 650);
  expectEveryArrivalOnce(a, 30);
  // About 23: stopped 0.65 s into 3 s at 10/s (a slow start or a late stop timer moves it).
  expect(a.notStarted).toBeGreaterThanOrEqual(10);
  expect(a.notStarted).toBeLessThanOrEqual(28);
  expect(a.stoppedAnswering).toBeNull();
});

test('a stop while syncs wait on a silent server ends within 2 s: the syncs still running are cut short, and all add up', async () => {
  const t0 = Date.now();
  // Answers nothing after the handshake; each call would wait its 5 s timeout.
  const a = await arrivals({ nullResults: true, answerFirst: 0, delayMs: 1 }, 20, 2000, 500);
  expect(Date.now() - t0).toBeLessThan(2600);
  expectEveryArrivalOnce(a, 40);
  expect(a.failures['cut-short']).toBeGreaterThanOrEqual(5);
  expect(a.synced).toBe(0);
});

describe('the wallet-sync iteration when recording a sync throws', () => {
  test('the hold executor ends instead of waiting for ever, and the error comes out', async () => {
    srv = await startMisbehavingServer({ nullResults: true });
    const target = { host: '127.0.0.1', port: srv.port, tls: false, timeoutMs: 2000 };
    let fill: ReturnType<typeof hold.create> | undefined;
    const iteration = walletSyncIteration({
      clock: new RunClock(process.hrtime.bigint()),
      workload: electrumWorkload,
      wallets: [wallet],
      connection: target,
      hold: true,
      ended: (u) => {
        u.result.session?.close();
        throw new Error('write refused');
      },
      failed: () => fill?.stop(),
    });
    fill = hold.create(iteration, { kind: 'hold', sessions: 3, concurrency: 2 }, 0);
    await fill.run();
    await expect(iteration.settled()).rejects.toThrow('write refused');
  });
});

describe('wallets paced by any executor of the engine', () => {
  test('shared iterations: exactly K syncs, each ending once', async () => {
    const a = await arrivals({ nullResults: true }, { kind: 'shared-iterations', vus: 3, iterations: 7, thinkTimeMs: 0 }, 10_000);
    expectEveryArrivalOnce(a, 7);
    expect(a.synced).toBe(7);
  });

  test('closed virtual users against a server that stops answering: it is said to have stopped, and every sync started ends once', async () => {
    // Long enough for each user's second sync (after a first of about a second) to time out. The
    // server answers the first two syncs' connections, not a count of calls: a user's second sync,
    // started as its first ends, could otherwise take answers the other user's first still needed
    // (its last write waits up to a second in the workload's send buffer).
    const a = await arrivals({ nullResults: true, answerConnections: 2 }, { kind: 'vus', vus: 2, thinkTimeMs: 0 }, 5000);
    expect(a.notStarted).toBe(0);
    expectEveryArrivalOnce(a, a.synced + a.failed);
    expect(a.synced).toBe(2);
    expect(a.failures.timeout).toBeGreaterThanOrEqual(2);
    expect(a.stoppedAnswering).toMatchObject({ answered: 2 });
  });
});

describe('held wallets', () => {
  /** Wallets held on `o`'s server and nothing else: the summary of its run, stored as \`load --workload\` stores it. */
  async function holding(o: MisbehavingOptions, hold: number, holdConcurrency: number, arrivals?: { rate: number; durationMs: number }): Promise<ServerLoadSummary> {
    srv = await startMisbehavingServer(o);
    lastDb = path.join(dir, `${Math.random()}.sqlite`);
    const results = ResultsStore.open(lastDb);
    try {
      const { store, target, runId, serverIds } = walletLoadRun(results, srv.port);
      const load = new WalletLoad({ servers: [target], workload: electrumWorkload, wallets: [wallet], connection: { timeoutMs: stopsAnswering(o) ? 1000 : 5000 }, hold, holdConcurrency, rate: arrivals?.rate, durationMs: arrivals?.durationMs ?? 0, log: () => undefined }, store, runId, serverIds);
      const summary = await load.runServer(target);
      store.finishRun(runId, 'completed', { servers: [summary] });
      return summary;
    } finally {
      results.close();
    }
  }

  test('a server that holds every wallet: none said to have stopped', async () => {
    const s = await holding({ nullResults: true }, 4, 2);
    expect(s.held).toBe(4);
    expect(s.holdFailed).toBe(0);
    expect(s.stoppedAnswering).toBeNull();
  });

  test('a server that stops answering while the hold fills and answers no arriving wallet: one silence, with the arrivals unanswered after it', async () => {
    const s = await holding({ nullResults: true, answerConnections: 4 }, 40, 4, { rate: 5, durationMs: 1000 });
    expect(s.held).toBe(4);
    expect(s.arrivals).toMatchObject({ intended: 5, synced: 0 });
    // Dated from the hold's last answer (each answered sync takes about a second), with the hold's
    // failed syncs after it and every arrival.
    expect(s.stoppedAnswering).toMatchObject({ answered: 4, of: 4 + s.holdFailed + 5 });
    expect(s.stoppedAnswering!.unanswered).toBeGreaterThanOrEqual(5 + 5);
    expect(s.stoppedAnswering!.atS).toBeGreaterThan(0.5);
    expect(s.stoppedAnswering!.atS).toBeLessThan(s.holdSeconds);
  });

  test('a server that holds its wallets and then answers no arriving one: one silence over the run, dated from the hold', async () => {
    // The 2 held wallets' connections answered (about a second each), no arriving wallet's: 5 a
    // second for 2 s, each timing out after 1 s.
    const s = await holding({ nullResults: true, answerConnections: 2 }, 2, 2, { rate: 5, durationMs: 2000 });
    expect(s.held).toBe(2);
    expect(s.arrivals).toMatchObject({ intended: 10, synced: 0, failures: { timeout: 10 } });
    // The arrivals alone never had an answer; the server's run had two, and then none.
    expect(s.arrivals!.stoppedAnswering).toMatchObject({ answered: 0, of: 10 });
    expect(s.stoppedAnswering).toMatchObject({ answered: 2, of: 12, unanswered: 10 });
    expect(s.stoppedAnswering!.atS).toBeGreaterThan(0.5);
    expect(s.stoppedAnswering!.atS).toBeLessThan(s.holdSeconds + 0.5);
  });

  test('a server that stops answering while the hold fills: it is said to have stopped, in the summary and the report', async () => {
    // The first 4 syncs' connections are answered (about a second each: the workload's last
    // subscriptions wait a second); every later one times out, until the fill gives up after 11
    // failures (at least 10 are allowed), each round a second after the one before: the rounds
    // after the first failing one are all due after the last answer.
    const s = await holding({ nullResults: true, answerConnections: 4 }, 40, 4);
    expect(s.held).toBe(4);
    expect(s.holdFailed).toBeGreaterThanOrEqual(11);
    expect(s.holdFailures).toMatchObject({ timeout: s.holdFailed });
    expect(s.stoppedAnswering).toMatchObject({ answered: 4, of: 4 + s.holdFailed });
    expect(s.stoppedAnswering!.unanswered).toBeGreaterThanOrEqual(5);
    const [run] = readModels(reportOptions({ db: lastDb, out: dir })).wallet!.runs;
    expect(walletLoadTable(run).rows[0][0]).toMatch(new RegExp(`^s: wallet syncs answered 4 of ${4 + s.holdFailed}, stopped answering at \\d\\.\\d\\d s \\(\\d+ unanswered after\\)$`));
  });
});

describe("whether the server stopped answering the run", () => {
  test('a summary stored before the whole run was judged: its arrivals say it', () => {
    const stop = { answered: 3, of: 9, atS: 2, unanswered: 6 };
    const arrivals = { intended: 9, synced: 3, failed: 6, failures: { timeout: 6 }, notStarted: 0, answeredRate: 0, p50Ms: null, p90Ms: null, p99Ms: null, lagP99Ms: null, stoppedAnswering: stop, generator: { bound: false, reasons: [] } };
    const stored: ServerLoadSummary = { server: 's', held: 0, holdFailed: 0, holdSeconds: 0, rssPerHeldKiB: null, arrivals, notify: null, reconnects: null, loopDelayP99Ms: 1 };
    expect(serverStoppedAnswering(stored)).toEqual(stop);
    expect(serverStoppedAnswering({ ...stored, stoppedAnswering: null })).toBeNull();
  });
});

function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* the generator's loop is held */
  }
}

describe('the one generator check, on arrivals', () => {
  // A server in its own process answering in ~200 ms: the starved loop is the generator's alone.
  test('quiet arrivals are not generator-bound', async () => {
    // Answers in 1 s here: a sync of ~1.3 s at 200 ms was at risk after ~130 ms of lag, and one
    // arrival of 15 at risk (one pause of this process) reads as bound.
    const a = await arrivals({ nullResults: true, delayMs: 1000 }, 10, 1500, undefined, true);
    expectEveryArrivalOnce(a, 15);
    expect(a.generator).toEqual({ bound: false, reasons: [] });
  });

  test('arrivals from a starved generator (its loop blocked 300 ms in every 400) are generator-bound, with the reason', async () => {
    // Blocks long against a sync of more than a second (the electrum workload's send buffer).
    const starve = setInterval(() => blockLoop(300), 400);
    try {
      // 7 a second: arrivals fall at every phase of the 400 ms blocks, not always at the same one.
      const a = await arrivals({ nullResults: true, delayMs: 200 }, 7, 3000, undefined, true);
      expectEveryArrivalOnce(a, 21);
      expect(a.generator.bound).toBe(true);
      expect(a.generator.reasons[0]).toMatch(/^\d+ of 21 arrivals \(\d+\.\d%\) started late for more than 10% of their latency/);
    } finally {
      clearInterval(starve);
    }
  });
});

describe('--abuse beside the arrivals', () => {
  type AbuseSpec = ReturnType<typeof parseAbuseSpec>;
  /** Arrivals (2/s for a minute, nothing held) on a fresh server started with `o`, `spec` beside them from `atMs` for `forMs`: `use` gets the load and its target. */
  async function withAbusedLoad<T>(o: MisbehavingOptions, spec: AbuseSpec, atMs: number, forMs: number, use: (load: WalletLoad, target: ServerTarget) => Promise<T>): Promise<T> {
    srv = await startMisbehavingServer(o);
    const results = ResultsStore.open(path.join(dir, `${Math.random()}.sqlite`));
    try {
      const { store, target, runId, serverIds } = walletLoadRun(results, srv.port);
      const load = new WalletLoad(
        { servers: [target], workload: electrumWorkload, wallets: [wallet], connection: { timeoutMs: 5000 }, hold: 0, holdConcurrency: 1, rate: 2, durationMs: 60_000, abuse: { spec, atMs, forMs }, log: () => undefined },
        store,
        runId,
        serverIds,
      );
      return await use(load, target);
    } finally {
      results.close();
    }
  }

  /** A run of arrivals with `abuse` beside them on `o`'s server, stopped `stopAfterMs` after the abuse began: how long the run took to end after the stop. */
  async function abusedRunStopMs(o: MisbehavingOptions, abuse: string, stopAfterMs: number): Promise<number> {
    const spec = parseAbuseSpec(abuse);
    let abuseBegan!: () => void;
    const began = new Promise<void>((resolve) => (abuseBegan = resolve));
    // Timed from the abuse's start, not the run's: on a busy machine building its payload can take seconds.
    const timed = { ...spec, profile: { ...spec.profile, run: (...args: Parameters<typeof spec.profile.run>) => (abuseBegan(), spec.profile.run(...args)) } };
    return withAbusedLoad(o, timed, 200, 50_000, async (load, target) => {
      let stoppedAt = 0;
      void began.then(() =>
        setTimeout(() => {
          stoppedAt = Date.now();
          load.stop();
        }, stopAfterMs),
      );
      await load.runServer(target);
      expect(stoppedAt).toBeGreaterThan(0);
      return Date.now() - stoppedAt;
    });
  }

  test("an abuse that fails while the wallets arrive fails the run once they have ended, never as an unhandled rejection", async () => {
    srv = await startMisbehavingServer({ nullResults: true });
    const results = ResultsStore.open(path.join(dir, `${Math.random()}.sqlite`));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { store, target, runId, serverIds } = walletLoadRun(results, srv.port);
      // A profile that fails as it starts: how any of them would fail on a fault of ours.
      const spec = parseAbuseSpec('idle-connections');
      const failing = { ...spec, profile: { ...spec.profile, run: () => Promise.reject(new Error('the profile failed')) } };
      const load = new WalletLoad(
        { servers: [target], workload: electrumWorkload, wallets: [wallet], connection: { timeoutMs: 5000 }, hold: 0, holdConcurrency: 1, rate: 2, durationMs: 2000, abuse: { spec: failing, atMs: 200, forMs: 1000 }, log: () => undefined },
        store,
        runId,
        serverIds,
      );
      await expect(load.runServer(target)).rejects.toThrow('the profile failed');
      // A rejection left unhandled is reported on a later turn of the loop.
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      results.close();
    }
  });

  test("arrivals that fail end the abuse beside them before the run fails: it never runs on by itself after the run", async () => {
    const spec = parseAbuseSpec('idle-connections');
    let abuseRunning = false;
    const run = async (...args: Parameters<typeof spec.profile.run>) => {
      abuseRunning = true;
      try {
        return await spec.profile.run(...args);
      } finally {
        abuseRunning = false;
      }
    };
    await withAbusedLoad({ nullResults: true }, { ...spec, profile: { ...spec.profile, run } }, 0, 50_000, async (load, target) => {
      // The arrivals' segment fails once the abuse is under way, as any fault of ours in it would.
      const runner = (load as unknown as { runner: { runServer: () => Promise<never> } }).runner;
      runner.runServer = () => new Promise((_, reject) => setTimeout(() => reject(new Error('the arrivals failed')), 500));
      const t0 = Date.now();
      await expect(load.runServer(target)).rejects.toThrow('the arrivals failed');
      expect(abuseRunning).toBe(false);
      expect(Date.now() - t0).toBeLessThan(10_000);
    });
  });

  test('a stop while the abuse payload is being built ends the run there: the abuse never starts, and the run ends without error', async () => {
    const spec = parseAbuseSpec('idle-connections');
    let started = 0;
    // A payload that takes until the stop to build, as a large one does on a busy machine.
    const prepare = (_: Record<string, number>, stopped: () => boolean) =>
      new Promise<string[]>((resolve) => {
        const poll = setInterval(() => stopped() && (clearInterval(poll), resolve([])), 10);
      });
    const run = (...args: Parameters<typeof spec.profile.run>) => (started++, spec.profile.run(...args));
    await withAbusedLoad({ nullResults: true }, { ...spec, profile: { ...spec.profile, prepare, run } }, 0, 50_000, async (load, target) => {
      setTimeout(() => load.stop(), 300);
      const summary = await load.runServer(target);
      expect(started).toBe(0);
      expect(summary.arrivals).toBeNull();
    });
  });

  test('a stop while the abuse is stuck writing to a server that accepts and never reads ends the run within 2 s', async () => {
    expect(await abusedRunStopMs({ neverReads: true }, 'oversized-batch:size=200000', 1500)).toBeLessThan(2000);
  });
});
