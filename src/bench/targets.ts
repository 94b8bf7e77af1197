/**
 * `--server` specs as bench targets: the profile checked and the address completed from --host,
 * --port or the profile's default ports. Parsing and formatting of addresses is the shared
 * src/core/server-address.ts.
 *   PROFILE                          e.g. electrumx (host/port from --host/--port, or the running lab)
 *   [LABEL=]PROFILE@HOST[:PORT]      e.g. electrs@127.0.0.1:50001, old=electrumx@[::1]:50001
 *   [LABEL=]PROFILE@ssl://HOST:PORT  TLS (also tcp://, electrum://, electrums://)
 */
import { checkHost, checkPort, formatServerUrl, parseServerSpec as parseSpec, type ServerAddress } from '../core/server-address';
import { isProfileName, PROFILES, PROFILE_NAMES, ProfileName } from '../servers/profiles';
import { UserError } from '../user-error';

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
}

export function parseServerSpec(spec: string): PartialTarget {
  const { label, profile, address } = parseSpec(spec, '--server');
  if (!isProfileName(profile)) {
    throw new UserError(`--server: unknown server profile ${JSON.stringify(profile)} in ${JSON.stringify(spec)}; known: ${PROFILE_NAMES.join(', ')}`);
  }
  const target: PartialTarget = { name: label ?? profile, profile, tls: address?.tls ?? false };
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
  };
}

/** tcp:// or ssl://, the spelling stored in results databases. */
export function targetUrl(t: ServerTarget): string {
  return formatServerUrl(t, 'tcp');
}
