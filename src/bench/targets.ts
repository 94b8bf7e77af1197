/**
 * Parses `--server` specs into connection targets:
 *   PROFILE                          e.g. electrumx (host/port from --host/--port, or the running lab)
 *   [LABEL=]PROFILE@HOST[:PORT]      e.g. electrs@127.0.0.1:50001, old=electrumx@10.0.0.5:50001
 *   [LABEL=]PROFILE@ssl://HOST:PORT  TLS (also tcp://, electrum://, electrums://)
 */
import { isProfileName, PROFILES, PROFILE_NAMES, ProfileName } from '../servers/profiles';
import { UserError } from '../user-error';

export interface ServerTarget {
  name: string;
  profile: ProfileName;
  host: string;
  port: number;
  tls: boolean;
}

export interface PartialTarget {
  name: string;
  profile: ProfileName;
  host?: string;
  port?: number;
  tls: boolean;
}

const SPEC = /^(?:([A-Za-z0-9_.-]+)=)?([a-z]+)(?:@(?:(tcp|ssl|tls|electrum|electrums):\/\/)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?)?$/;

export function parseServerSpec(spec: string): PartialTarget {
  const m = SPEC.exec(spec.trim());
  if (!m) throw new UserError(`--server: cannot parse ${JSON.stringify(spec)}; expected [LABEL=]PROFILE[@[ssl://]HOST[:PORT]]`);
  const [, label, profile, scheme, host, port] = m;
  if (!isProfileName(profile)) {
    throw new UserError(`--server: unknown server profile ${JSON.stringify(profile)} in ${JSON.stringify(spec)}; known: ${PROFILE_NAMES.join(', ')}`);
  }
  const tls = scheme === 'ssl' || scheme === 'tls' || scheme === 'electrums';
  const target: PartialTarget = { name: label ?? profile, profile, tls };
  if (host) target.host = host.replace(/^\[|\]$/g, '');
  if (port) target.port = checkPort(Number(port), spec);
  return target;
}

export function checkPort(port: number, what: string): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UserError(`--server ${what}: port must be 1..65535`);
  return port;
}

/** Fills a target's missing host/port from explicit flags, else the profile's defaults. */
export function completeTarget(t: PartialTarget, flags: { host?: string; port?: number }): ServerTarget {
  const profile = PROFILES[t.profile];
  return {
    name: t.name,
    profile: t.profile,
    host: t.host ?? flags.host ?? '127.0.0.1',
    port: t.port ?? flags.port ?? (t.tls ? profile.defaultTlsPort : profile.defaultPort),
    tls: t.tls,
  };
}

export function targetUrl(t: ServerTarget): string {
  return `${t.tls ? 'ssl' : 'tcp'}://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
}
