/** The report's tables: the "via" column (over WebSocket when the stored address says so, else the profile's transport), and a --cold run's cold and warm passes. */
import { coldTable, coldVerdictsTable, viaOf } from '../../../src/report/tables';
import type { ReportModel } from '../../../src/report/model';

function modelOf(servers: Array<{ label: string; profile: string; url: string }>): ReportModel {
  return { servers: servers.map(({ label, profile, url }) => ({ label, record: { profile, url } })) } as unknown as ReportModel;
}

test.each([
  ['electrumx', 'tcp://h:50001', 'Electrum'],
  ['electrumx', 'ssl://h:50002', 'Electrum'],
  ['electrumx', 'ws://h:50003', 'WebSocket'],
  ['fulcrum', 'wss://h:50004', 'WebSocket'],
  ['esplora-rest', 'http://h:3000', 'REST'],
  ['a-profile-of-a-later-version', 'tcp://h:1', 'Electrum'],
])('%s at %s: %s', (profile, url, via) => {
  expect(viaOf(modelOf([{ label: 'x', profile, url }]), 'x')).toBe(via);
});

/** A --cold run's table: the warm and cold medians side by side, the sums; none for other runs. */
describe('cold and warm passes', () => {
  const row = { server: 'fulcrum', method: 'balance' as const, warmP50Ms: 0.353, coldP50Ms: 0.3704, n: 102, nOk: 101, coldMaxMs: 8.7311, errors: { timeout: 1 }, firstTouches: 101, firstTouchSumMs: 91.151, warmMedianSumMs: 29.343, warmMeanSumMs: 30.5 };

  test('no table for a run without cold passes, stored before them or not', () => {
    expect(coldTable({} as ReportModel)).toBeNull();
    expect(coldTable({ cold: [] } as unknown as ReportModel)).toBeNull();
  });

  test('one row per server and method, each figure under its heading', () => {
    const t = coldTable({ cold: [row] } as unknown as ReportModel)!;
    expect(Object.fromEntries(t.head.map((h, i) => [h, t.rows[0][i]]))).toEqual({
      server: 'fulcrum',
      method: 'balance',
      'warm p50 ms': '0.353',
      'cold p50 ms': '0.370',
      'cold n': '102',
      'cold ok': '101',
      'cold max ms': '8.731',
      'first touches': '101',
      'first-touch sum ms': '91.2',
      'same calls warm ms': '30.5',
      'cold errors': 'timeout 1',
    });
    expect(t.note).toMatch(/warm passes alone/);
  });

  test('a run stored before the warm pairs (schema 14): its first touches beside the warm medians, marked so', () => {
    const t = coldTable({ cold: [{ ...row, warmMeanSumMs: null }] } as unknown as ReportModel)!;
    expect(t.rows[0][t.head.indexOf('same calls warm ms')]).toBe('29.3 median');
  });

  test('the verdict per server, in the words of the A/B verdicts; none without cold passes', () => {
    expect(coldVerdictsTable({} as ReportModel)).toBeNull();
    const verdict = { test: 'sign test', n: 88, changePct: 18.5, ciPct: [7.9, 34.2] as [number, number], p: 0.00001, verdict: 'slower' as const };
    const t = coldVerdictsTable({ coldVerdicts: [{ server: 'esplora', coldSumNs: 120e6, warmSumNs: 98.4e6, verdict }] } as unknown as ReportModel)!;
    expect(Object.fromEntries(t.head.map((h, i) => [h, t.rows[0][i]]))).toEqual({
      server: 'esplora',
      'first-touch sum ms': '120.0',
      'same calls warm ms': '98.4',
      'cold vs warm': 'slower +18.5 % [+7.9, +34.2], sign test n=88 p=0.000',
    });
  });
});
