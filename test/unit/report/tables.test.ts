/** The report's "via" column: over WebSocket when the stored address says so, else the profile's transport. */
import { viaOf } from '../../../src/report/tables';
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
