/** A bench's printed summary: a --cold run's main table is its warm passes', with its cold passes after it; a run without them as it was. */
import { printBench } from '../../../src/cli/print-bench';
import type { RunOutcome } from '../../../src/runs/outcome';
import type { BenchDetail, BenchResult } from '../../../src/runs/kinds/bench';

const stall = { p50: 0, p90: 0, p99: 0, max: 0 };
const summary = { serverId: 1, server: 'fulcrum', method: 'balance', n: 10, nOk: 10, p50: 353_000, p90: 400_000, p99: 500_000, p999: null, max: 600_000, mismatches: 0, errors: {} };
const coldRow = { serverId: 1, server: 'fulcrum', method: 'balance', n: 10, nOk: 10, p50: 370_400, p90: 1e6, p99: 8e6, max: 8_731_100, errors: {}, warmP50: 353_000, firstTouches: 10, firstTouchSumNs: 91_151_000, warmMedianSumNs: 3_530_000, warmMeanSumNs: 3_610_000 };

function outcome(cold: BenchResult['cold'], coldVerdicts: BenchResult['coldVerdicts'] = []): RunOutcome<BenchDetail> {
  const result = {
    runId: 1,
    status: 'completed',
    summaries: [summary],
    selfCheck: { inFlightStallMs: { ...stall, calls: 10, over1ms: 0, atRisk: 0 }, eventLoopDelayMs: stall, cpu: { userMs: 0, systemMs: 0, wallMs: 1, utilisation: 0 } },
    warnings: [],
    samples: 30,
    lateReplies: 0,
    order: 'address',
    answering: [],
    coldVerdicts,
    replyHolds: [],
    cold,
  } as BenchResult;
  return { kind: 'bench', runId: 1, db: 'r.sqlite', status: 'completed', answering: [], thresholds: [], regressed: [], json: {}, detail: { result } };
}

test('a --cold run: the table says it is the warm passes, and the cold passes follow it side by side with the warm median', () => {
  const [text, cold] = printBench(outcome([coldRow]), { json: false, log: () => undefined });
  expect(text.split('\n')[0]).toBe('run 1 completed: 30 samples written to r.sqlite (warm-up and cold passes excluded below; the cold passes after)');
  const lines = cold.trim().split('\n');
  expect(lines[0]).toMatch(/^cold passes \(after the OS page cache was dropped and the servers restarted, on fresh connections\)/);
  const head = lines[2].trim().split(/\s{2,}/);
  const cells = lines[4].trim().split(/\s{2,}/);
  expect(Object.fromEntries(head.map((h, i) => [h, cells[i]]))).toEqual({
    server: 'fulcrum',
    method: 'balance',
    'warm p50 ms': '0.353',
    'cold p50 ms': '0.370',
    'cold n': '10',
    'cold ok': '10',
    'cold max ms': '8.731',
    'first touches': '10',
    'first-touch sum ms': '91.151',
    'same calls warm ms': '3.610',
    'cold errors': '0',
  });
});

test("a --cold run's verdicts per server follow its cold table, one line each, in the words of the A/B verdicts", () => {
  const slower = { test: 'sign test', n: 102, changePct: 41, ciPct: [26.7, 64.3] as [number, number], p: 0.0001, verdict: 'slower' as const };
  const same = { test: 'sign test', n: 102, changePct: 5.2, ciPct: [-0.6, 12.6] as [number, number], p: 0.09, verdict: 'no change' as const };
  const printed = printBench(
    outcome([coldRow], [
      { server: 'electrumx', coldSumNs: 1, warmSumNs: 1, verdict: slower },
      { server: 'electrs', coldSumNs: 1, warmSumNs: 1, verdict: same },
    ]),
    { json: false, log: () => undefined },
  );
  const lines = printed[2].trim().split('\n');
  expect(lines[0]).toMatch(/^first touches cold against the same calls warm, per server/);
  expect(lines.slice(1)).toEqual(['  electrumx  slower +41.0 % [+26.7, +64.3], sign test n=102 p=0.000', '  electrs    ~ +5.2 % [−0.6, +12.6], sign test n=102 p=0.090']);
});

test('a run without cold passes prints as before: no cold table, the warm-up alone excluded', () => {
  const printed = printBench(outcome([]), { json: false, log: () => undefined });
  expect(printed).toHaveLength(1);
  expect(printed[0].split('\n')[0]).toBe('run 1 completed: 30 samples written to r.sqlite (warm-up passes excluded below)');
  expect(printed[0]).not.toMatch(/cold/);
});
