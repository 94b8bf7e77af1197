/**
 * The Electrum protocol over TCP or TLS, what every profile but esplora-rest speaks: one connection
 * set, lent one caller at a time to the bench (which also times our event loop during each call)
 * or carrying load's pipelined requests, and its own connection for tip notifications.
 */
import { TipFollower } from '../electrum/tip-follower';
import { TRANSPORT_LABELS, TRANSPORT_SCHEMES } from '../servers/profiles';
import { ConnectionSet } from './electrum-connections';
import { socketOptions, type Transport } from './transport';

export const ELECTRUM: Transport = {
  label: TRANSPORT_LABELS.electrum,
  scheme: TRANSPORT_SCHEMES.electrum,
  speaksElectrum: true,
  bindsSourceAddresses: true,
  openPool: (t, o) => new ConnectionSet({ ...socketOptions(t, o), maxLineBytes: o.maxLineBytes, measureLoop: true, clientName: o.clientName, probeReplyHold: o.probeReplyHold }, o.concurrency, 1),
  followTip: (t, o) => TipFollower.start({ ...socketOptions(t, o), signal: o.signal }),
  openConnections: (t, o) =>
    new ConnectionSet({ ...socketOptions(t, o), maxLineBytes: o.maxLineBytes, keepaliveMs: 0, skipLargeResults: true }, o.connections, o.pipeline, o.sourceAddresses),
};
