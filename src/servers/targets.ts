/**
 * `--server` specs as bench targets: the profile checked and the address completed from --host,
 * --port or the profile's default ports. Parsing and formatting of addresses is the shared
 * src/core/server-address.ts.
 *   PROFILE                          e.g. electrumx (host/port from --host/--port, or the running lab)
 *   [LABEL=]PROFILE@HOST[:PORT]      e.g. electrs@127.0.0.1:50001, old=electrumx@[::1]:50001
 *   [LABEL=]PROFILE@ssl://HOST:PORT  TLS (also tcp://, electrum://, electrums://)
 *   [LABEL=]PROFILE@ws://HOST:PORT   the Electrum protocol over WebSocket (wss:// with TLS); the port is required
 *   [LABEL=]esplora-rest@http://HOST:PORT   Esplora's REST API (https:// with TLS; mempool-electrs-rest for mempool's fork)
 */
import { checkHost, checkPort, formatServerUrl, HTTP_SCHEMES, parseServerSpec as parseSpec, type ServerAddress } from '../core/server-address';
import { isProfileName, PROFILES, PROFILE_NAMES, ProfileName, urlScheme } from './profiles';
import { UserError } from '../core/user-error';

export { checkHost, checkPort };

export interface ServerTarget extends ServerAddress {
  name: string;
  profile: ProfileName;
}

export interface PartialTarget {
  name: string;
  profile: ProfileName;
  host?: string;
  port?: number;
  tls: boolean;
  websocket?: boolean;
}

export function parseServerSpec(spec: string): PartialTarget {
  const { label, profile, address } = parseSpec(spec, '--server');
  if (!isProfileName(profile)) {
    throw new UserError(`--server: unknown server profile ${JSON.stringify(profile)} in ${JSON.stringify(spec)}; known: ${PROFILE_NAMES.join(', ')}`);
  }
  const http = address?.scheme !== undefined && HTTP_SCHEMES.includes(address.scheme);
  const httpProfile = urlScheme(profile) === 'http';
  if (http && !httpProfile) {
    const rest = PROFILE_NAMES.filter((p) => urlScheme(p) === 'http').join(' or ');
    throw new UserError(`--server: ${address!.scheme}:// is for the ${rest} profile (Esplora's REST API), not ${profile}, in ${JSON.stringify(spec)}`);
  }
  if (httpProfile && address?.scheme !== undefined && !http) {
    throw new UserError(`--server: ${profile} speaks HTTP: write ${profile}@http://HOST:PORT (or https://), not ${address.scheme}://, in ${JSON.stringify(spec)}`);
  }
  if (address?.websocket && address.port === undefined) {
    throw new UserError(`--server: ${address.scheme}:// needs a port (servers have no customary WebSocket port), in ${JSON.stringify(spec)}`);
  }
  const target: PartialTarget = { name: label ?? profile, profile, tls: address?.tls ?? false, ...(address?.websocket ? { websocket: true } : {}) };
  if (address) target.host = address.host;
  if (address?.port !== undefined) target.port = address.port;
  return target;
}

/** Fills a target's missing host/port from explicit flags, else the profile's defaults. */
export function completeTarget(t: PartialTarget, flags: { host?: string; port?: number }): ServerTarget {
  const profile = PROFILES[t.profile];
  const flagHost = flags.host === undefined ? undefined : checkHost(flags.host, '--host');
  return {
    name: t.name,
    profile: t.profile,
    host: t.host ?? flagHost ?? '127.0.0.1',
    port: t.port ?? flags.port ?? (t.tls ? profile.defaultTlsPort : profile.defaultPort),
    tls: t.tls,
    ...(t.websocket ? { websocket: true } : {}),
  };
}

/** tcp:// or ssl:// (ws:// or wss:// over WebSocket, http:// or https:// for REST), the spelling stored in results databases. */
export function targetUrl(t: ServerTarget): string {
  return formatServerUrl(t, urlScheme(t.profile));
}
