/** The profile `dataset --count-profile auto` takes from what server.version answered. */
import { profileOfSoftware } from '../../../src/dataset/count-server';

test.each([
  ['ElectrumX 1.16.0', 'electrumx'],
  ['Fulcrum 2.1.1', 'fulcrum'],
  ['electrs-esplora 0.4.1', 'esplora'],
  ['electrs/0.12.0', 'electrs'],
  // mempool.space's fork names itself so (src/config.rs), with the git hash when built from a clone.
  ['mempool-electrs 3.1.0-dev', 'mempool-electrs'],
  ['mempool-electrs 3.1.0-dev-80758ea', 'mempool-electrs'],
  ['Misbehaving 0.1', 'generic'],
])('%s is measured as %s', (software, profile) => {
  expect(profileOfSoftware(software)).toBe(profile);
});
