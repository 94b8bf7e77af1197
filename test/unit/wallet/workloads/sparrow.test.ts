/**
 * Which servers the sparrow workload batches with, read from the server.version answer as Sparrow
 * 2.5.4's ElectrumServer.getServerCapability reads it: ElectrumX anywhere in the name, Frigate and
 * Cormorant, electrs from 0.9.0, Fulcrum from 1.6.0, mempool's electrs from 3.1.0 (its dev builds
 * only past it, or the one named) with fee targets up to 25; ElectrumPersonalServer neither batches
 * nor is asked server.features; any other server gets single calls.
 */
import { sparrowCapability } from '../../../../src/wallet/workloads/sparrow';

const batching = { batches: true, maxFeeTarget: 50, features: true };
const single = { batches: false, maxFeeTarget: 50, features: true };

test.each([
  ['ElectrumX 1.16.0', batching],
  ['electrumx-custom 1.0', batching],
  ['Frigate 1.1.0', batching],
  ['cormorant 0.2', batching],
  ['electrs/0.12.0', batching],
  ['electrs/0.9.0-rc1', batching],
  ['electrs/0.8.12', single],
  ['electrs/unknown', single],
  ['Fulcrum 1.9.8', batching],
  ['Fulcrum 1.6', batching],
  ['Fulcrum 1.5.9', single],
  ['mempool-electrs 3.1.0', { batches: true, maxFeeTarget: 25, features: true }],
  ['mempool-electrs 3.2.0-dev', { batches: true, maxFeeTarget: 25, features: true }],
  ['mempool-electrs 3.1.0-dev', single],
  ['mempool-electrs 3.1.0-dev-249848d', { batches: true, maxFeeTarget: 25, features: true }],
  ['mempool-electrs 3.0.9', single],
  ['ElectrumPersonalServer 0.2.4', { batches: false, maxFeeTarget: 50, features: false }],
  ['electrs-esplora 0.4.1', single],
  ['', single],
])('%s', (software, expected) => {
  expect(sparrowCapability(software)).toEqual(expected);
});
