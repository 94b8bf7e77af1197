/**
 * Which transport a server target is measured through, decided here and nowhere else: its profile
 * names the transport (src/servers/profiles.ts), unless its address is ws:// or wss://, and this
 * maps the name to what the stages need of it. It sits below bench, load, the engine and the report, which ask it rather than the profile.
 * Only the URL scheme (and the default ports) is plain data on the profile instead: src/servers/
 * targets.ts parses and writes addresses with it, and servers must not import the sockets in here.
 */
import { PROFILES, type ProfileName, type TransportName } from '../servers/profiles';
import type { ServerTarget } from '../servers/targets';
import { ELECTRUM } from './electrum';
import { ESPLORA_REST } from './esplora-rest';
import { WEBSOCKET } from './websocket';
import type { MeasuringPool, Tip, Transport, TransportOptions } from './transport';

const TRANSPORTS: Record<TransportName, Transport> = { electrum: ELECTRUM, websocket: WEBSOCKET, 'esplora-rest': ESPLORA_REST };

export function transportOf(of: ProfileName | { profile: ProfileName; websocket?: boolean }): Transport {
  if (typeof of !== 'string' && of.websocket) return WEBSOCKET;
  return TRANSPORTS[PROFILES[typeof of === 'string' ? of : of.profile].transport];
}

export function openPool(t: ServerTarget, o: TransportOptions): MeasuringPool {
  return transportOf(t).openPool(t, o);
}

export function followTip(t: ServerTarget, o: TransportOptions): Promise<Tip> {
  return transportOf(t).followTip(t, o);
}
