/**
 * Wallet sync verdicts (src/verdicts/wallet.ts) between two wallet bench runs, on simulated syncs:
 * per server over all wallets (paired by wallet), and per wallet.
 */
import { seededRandom } from '../../../src/core/random';
import { compareWalletRuns, type WalletSyncs } from '../../../src/verdicts/wallet';
import { regressions } from '../../../src/verdicts/comparison';
import { gaussian } from '../../support/simulated-latency';

describe('wallet syncs between two runs: per server over all wallets (paired by wallet), and per wallet', () => {
  /** A wallet bench run with `passes` counted syncs of each lab-like wallet on one server. */
  function walletRun(factor: number, seed: string, passes = 10): WalletSyncs[] {
    const rand = seededRandom(seed);
    const sizes = [1, 2, 5, 10, 20, 50, 100, 200, 400];
    const drifts = Array.from({ length: passes }, () => Math.exp(0.05 * gaussian(rand)));
    return sizes.map((txs) => {
      const okSyncs = drifts.map((d, i) => ({ pass: i + 2, ms: (5 + txs) * factor * d * Math.exp(0.08 * gaussian(rand)) }));
      const sorted = okSyncs.map((s) => s.ms).sort((x, y) => x - y);
      return { server: 'x', wallet: `w-${txs}tx`, txs, medianMs: sorted[Math.ceil(passes / 2) - 1], okSyncs };
    });
  }

  test('the same server twice: no change on every row; 40 % slower: slower on the server row and every wallet', () => {
    const same = compareWalletRuns(walletRun(1, 'a'), walletRun(1, 'b'));
    expect(same.map((r) => r.wallet)).toEqual([null, 'w-1tx', 'w-2tx', 'w-5tx', 'w-10tx', 'w-20tx', 'w-50tx', 'w-100tx', 'w-200tx', 'w-400tx']);
    expect(same[0].verdict).toMatchObject({ test: 'paired bootstrap', n: 9, verdict: 'no change' });
    expect(same[0].syncs).toEqual([90, 90]);
    const slower = compareWalletRuns(walletRun(1, 'a'), walletRun(1.4, 'c'));
    for (const r of slower) {
      expect(r.verdict.verdict).toBe('slower');
      expect(r.verdict.ciPct![0]).toBeGreaterThan(0);
    }
    expect(slower[1].verdict.test).toBe('bootstrap');
  });

  test('too few syncs or wallets: no verdict, saying why; the regression gate judges the server\'s row', () => {
    const few = compareWalletRuns(walletRun(1, 'a', 3), walletRun(1.4, 'c', 3));
    expect(few[0].verdict.verdict).toBe('slower'); // 9 wallets, 3 passes a side: enough for the server's row
    expect(few[1].verdict).toMatchObject({ verdict: null, why: '3 samples on the smaller side; a verdict needs at least 10' });
    const twoWallets = (r: WalletSyncs[]) => r.slice(0, 2);
    expect(compareWalletRuns(twoWallets(walletRun(1, 'a')), twoWallets(walletRun(1.4, 'c')))[0].verdict.why).toMatch(/2 wallets synced in both; a verdict needs at least 5/);
    const c = { rows: [], noiseFloorPct: 2, onlyA: [], onlyB: [], wallet: { workload: 'bdk', rows: compareWalletRuns(walletRun(1, 'a'), walletRun(1.4, 'c')) } };
    // Only the server's row fails the gate: a single wallet's rows carry the drift between runs.
    expect(c.wallet.rows.filter((r) => r.wallet !== null && r.verdict.verdict === 'slower').length).toBeGreaterThan(0);
    expect(regressions(c, 10).map((r) => r.what)).toEqual(['x bdk sync of every wallet']);
  });
});
