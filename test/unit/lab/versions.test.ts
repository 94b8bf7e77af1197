/** `lab up --with SERVER@VERSION`: what is accepted, what is refused and why, and where each version listens. */
import { labConfig } from '../../../src/lab/config';
import { labPolling } from '../../../src/lab/polling';
import { electrumx } from '../../../src/lab/servers/electrumx';
import { fulcrum } from '../../../src/lab/servers/fulcrum';
import { labComponentPorts } from '../../../src/lab/servers/registry';
import { parseLabVersion, versionPorts } from '../../../src/lab/versions';

test('electrumx@X.Y.Z names a version, called electrumx-X.Y.Z wherever it shows', () => {
  expect(parseLabVersion('electrumx@1.20.0')).toEqual({ server: 'electrumx', version: '1.20.0', name: 'electrumx-1.20.0' });
  expect(parseLabVersion('electrumx@1.16.0')).toEqual({ server: 'electrumx', version: '1.16.0', name: 'electrumx-1.16.0' });
});

test('anything else is refused with the reason, naming the input', () => {
  expect(parseLabVersion('electrumx')).toMatch(/"electrumx" is not SERVER@VERSION/);
  expect(parseLabVersion('electrumx@1.20')).toMatch(/"electrumx@1\.20" is not SERVER@VERSION/);
  expect(parseLabVersion('electrumx@1.20.0; rm -rf /')).toMatch(/is not SERVER@VERSION/);
  expect(parseLabVersion('fulcrum@1.9.0')).toMatch(/other versions of electrumx only, not "fulcrum"/);
  expect(parseLabVersion(`electrumx@${electrumx.version}`)).toMatch(/is the lab's own ElectrumX/);
});

test("each version slot has ports of its own, in one range of its own that none of the lab's ports falls in", () => {
  const cfg = labConfig({ ELECTRUM_BENCH_LAB_PORT_BASE: '30000' });
  const own = labComponentPorts(cfg).map(([, port]) => port);
  const slots = [0, 1, 2, 3, 4].flatMap((s) => Object.values(versionPorts(cfg, s)));
  expect(new Set([...own, ...slots]).size).toBe(own.length + slots.length);
  const [low, high] = [Math.min(...slots), Math.max(...slots)];
  expect(high - low + 1).toBe(slots.length);
  expect(own.filter((p) => p >= low && p <= high)).toEqual([]);
});

test('a version polls as its release does: e-x 1.16 every 5 s (no setting), later ones as the lab sets its own', () => {
  expect(labPolling('electrumx-1.16.0')).toMatchObject({ pollMs: 5000 });
  expect(labPolling('electrumx-1.17.0')).toBe(electrumx.polling);
  expect(labPolling('electrumx-1.20.0')).toBe(electrumx.polling);
  expect(labPolling('fulcrum')).toBe(fulcrum.polling);
  expect(labPolling('elsewhere')).toBeUndefined();
});
