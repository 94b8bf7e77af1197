/**
 * The transport registry's answers for every profile: the label the report prints, the scheme its
 * addresses are written in (the same as core's targetUrl, which reads it from the profile), and
 * what it can do beyond the three questions.
 */
import { PROFILE_NAMES, type ProfileName } from '../../../src/servers/profiles';
import { targetUrl } from '../../../src/servers/targets';
import { transportOf } from '../../../src/transports/registry';

const EXPECTED: Record<ProfileName, { label: string; scheme: string; speaksElectrum: boolean; bindsSourceAddresses: boolean }> = {
  electrumx: { label: 'Electrum', scheme: 'tcp', speaksElectrum: true, bindsSourceAddresses: true },
  electrs: { label: 'Electrum', scheme: 'tcp', speaksElectrum: true, bindsSourceAddresses: true },
  esplora: { label: 'Electrum', scheme: 'tcp', speaksElectrum: true, bindsSourceAddresses: true },
  'esplora-rest': { label: 'REST', scheme: 'http', speaksElectrum: false, bindsSourceAddresses: false },
  'mempool-electrs': { label: 'Electrum', scheme: 'tcp', speaksElectrum: true, bindsSourceAddresses: true },
  'mempool-electrs-rest': { label: 'REST', scheme: 'http', speaksElectrum: false, bindsSourceAddresses: false },
  fulcrum: { label: 'Electrum', scheme: 'tcp', speaksElectrum: true, bindsSourceAddresses: true },
  generic: { label: 'Electrum', scheme: 'tcp', speaksElectrum: true, bindsSourceAddresses: true },
};

test.each([...PROFILE_NAMES])('%s: label, scheme and abilities', (profile) => {
  const t = transportOf(profile);
  expect({ label: t.label, scheme: t.scheme, speaksElectrum: t.speaksElectrum, bindsSourceAddresses: t.bindsSourceAddresses }).toEqual(EXPECTED[profile]);
});

test.each([...PROFILE_NAMES])('%s: a target answers as its profile, and is written with its scheme', (profile) => {
  const target = { name: 'x', profile, host: '127.0.0.1', port: 1, tls: false };
  expect(transportOf(target)).toBe(transportOf(profile));
  expect(targetUrl(target)).toBe(`${EXPECTED[profile].scheme}://127.0.0.1:1`);
});

test.each([...PROFILE_NAMES.filter((p) => EXPECTED[p].scheme !== 'http')])('%s at a ws:// address: the WebSocket transport, written ws:// or wss://', (profile) => {
  const target = { name: 'x', profile, host: '127.0.0.1', port: 1, tls: false, websocket: true };
  const t = transportOf(target);
  expect({ label: t.label, scheme: t.scheme, speaksElectrum: t.speaksElectrum, bindsSourceAddresses: t.bindsSourceAddresses }).toEqual({
    label: 'WebSocket',
    scheme: 'ws',
    speaksElectrum: true,
    bindsSourceAddresses: true,
  });
  expect(targetUrl(target)).toBe('ws://127.0.0.1:1');
  expect(targetUrl({ ...target, tls: true })).toBe('wss://127.0.0.1:1');
});
