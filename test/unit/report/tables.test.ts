/** The report's tables: the "via" column (over WebSocket when the stored address says so, else the profile's transport), and a --cold run's cold and warm passes. */
import { coldTable, viaOf } from '../../../src/report/tables';
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
  const row = { server: 'fulcrum', method: 'balance' as const, warmP50Ms: 0.353, coldP50Ms: 0.3704, n: 102, nOk: 101, coldMaxMs: 8.7311, errors: { timeout: 1 }, firstTouches: 101, firstTouchSumMs: 91.151, warmMedianSumMs: 29.343 };

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
      'their warm medians ms': '29.3',
      'cold errors': 'timeout 1',
    });
    expect(t.note).toMatch(/warm passes alone/);
  });
});
