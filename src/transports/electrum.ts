/**
 * The Electrum protocol over TCP or TLS, what every profile but esplora-rest speaks: the bench's
 * pool of clients, its own connection for tip notifications, and load's pipelined sockets.
 */
import { ElectrumPool } from '../electrum/pool';
import { TipFollower } from '../electrum/tip-follower';
import { TRANSPORT_LABELS, TRANSPORT_SCHEMES } from '../servers/profiles';
import { ConnectionSet } from './electrum-connections';
import { socketOptions, type Transport } from './transport';

export const ELECTRUM: Transport = {
  label: TRANSPORT_LABELS.electrum,
  scheme: TRANSPORT_SCHEMES.electrum,
  speaksElectrum: true,
  bindsSourceAddresses: true,
  openPool: (t, o) => new ElectrumPool({ ...socketOptions(t, o), maxLineBytes: o.maxLineBytes, max: o.concurrency, measureLoop: true, clientName: o.clientName }),
  followTip: (t, o) => TipFollower.start({ ...socketOptions(t, o), signal: o.signal }),
  openConnections: (t, o) =>
    new ConnectionSet({ ...socketOptions(t, o), maxLineBytes: o.maxLineBytes, keepaliveMs: 0, skipLargeResults: true }, o.connections, o.pipeline, o.sourceAddresses),
};
