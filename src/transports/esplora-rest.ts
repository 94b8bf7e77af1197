/**
 * Esplora's HTTP REST API (the esplora-rest profile): answers in the Electrum protocol's shapes, so
 * the stages measure it like any server, but it is not the protocol (no wallet workloads, no block 0
 * check), and its load sockets cannot be bound to source addresses.
 */
import { RestTipFollower } from '../esplora/rest-tip';
import { PROFILES, TRANSPORT_LABELS, TRANSPORT_SCHEMES } from '../servers/profiles';
import { RestConnectionSet } from './esplora-rest-connections';
import { socketOptions, type Transport } from './transport';
import type { ServerTarget } from '../servers/targets';

/** Sockets per REST client under a closed model, whose pipeline is unbounded: HTTP/1.1 takes a socket per request in flight. */
const MAX_SOCKETS = 1024;

export const ESPLORA_REST: Transport = {
  label: TRANSPORT_LABELS['esplora-rest'],
  scheme: TRANSPORT_SCHEMES['esplora-rest'],
  speaksElectrum: false,
  bindsSourceAddresses: false,
  openPool: (t, o) => new RestConnectionSet({ ...restOptions(t, o), measureLoop: true }, o.concurrency, 1),
  followTip: (t, o) => RestTipFollower.start({ ...restOptions(t, o), maxSockets: 1 }),
  openConnections: (t, o) => new RestConnectionSet(restOptions(t, o), o.connections, Math.min(o.pipeline, MAX_SOCKETS)),
};

/** A REST client's options: the socket's, the line cap as the cap of a response body, and the profile's history paging. */
function restOptions(t: ServerTarget, o: Parameters<typeof socketOptions>[1] & { maxLineBytes: number }) {
  return { ...socketOptions(t, o), maxBodyBytes: o.maxLineBytes, historyPaging: PROFILES[t.profile].restHistory };
}
