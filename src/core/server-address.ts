/**
 * Which Electrum server: the one parser and formatter of a server's address, shared by bench
 * (`--server [LABEL=]PROFILE[@[scheme://]HOST[:PORT]]`), dataset (`--count-via electrum://HOST:PORT`),
 * the lab and the scripts under bench/. An IPv6 address goes in brackets (`[::1]:50001`), as in
 * URLs (RFC 3986 §3.2.2): without them its colons cannot be told from the port's.
 * Schemes: tcp:// and electrum:// are plain TCP; ssl://, tls:// and electrums:// are TLS; ws:// and
 * wss:// are the Electrum protocol over WebSocket (one JSON-RPC message per text frame, as ElectrumX
 * and Fulcrum serve it); http:// and https:// are for HTTP APIs (Esplora's REST), which their owners
 * insist on.
 * Every malformed input is a UserError naming the input.
 */
import net from 'node:net';
import { UserError } from './user-error';

export interface ServerAddress {
  host: string; // an IPv6 address without its brackets
  port: number;
  tls: boolean;
  /** Over WebSocket (ws://, wss:// with `tls`) rather than newline-delimited on the socket itself. */
  websocket?: boolean;
}

/** What an address text said; a missing port is left to the caller's default. */
export interface ParsedAddress {
  host: string;
  port?: number;
  tls: boolean;
  websocket?: boolean;
  scheme?: string;
}

/** `PROFILE`, `LABEL=PROFILE` or either with `@ADDRESS`; the profile is checked by its owner. */
export interface ServerSpec {
  label?: string;
  profile: string;
  address?: ParsedAddress;
}

const SCHEME_TLS: Record<string, boolean> = { tcp: false, electrum: false, ssl: true, tls: true, electrums: true, ws: false, wss: true, http: false, https: true };
export const HTTP_SCHEMES = ['http', 'https'];
export const WEBSOCKET_SCHEMES = ['ws', 'wss'];
export const SERVER_SCHEMES = Object.keys(SCHEME_TLS);

const HOST_NAME = /^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$/;
const SPEC = /^(?:([A-Za-z0-9_.-]+)=)?([A-Za-z0-9_-]+)(?:@(.*))?$/;
export const SPEC_SYNTAX = '[LABEL=]PROFILE[@[ssl://]HOST[:PORT]]';

export function checkPort(port: number, what: string): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UserError(`${what}: port must be 1..65535, got ${port}`);
  return port;
}

/**
 * A host name, IPv4 address or IPv6 address (brackets optional here, as nothing follows it),
 * returned without brackets. Checked up front because a malformed one would otherwise surface
 * only as a name-resolution failure.
 */
export function checkHost(host: string, what: string): string {
  const bad = () => new UserError(`${what}: ${JSON.stringify(host)} is not a host name or IP address`);
  if (host.startsWith('[') || host.endsWith(']')) {
    const inner = host.replace(/^\[|\]$/g, '');
    if (!host.startsWith('[') || !host.endsWith(']') || !net.isIPv6(inner)) throw bad();
    return inner;
  }
  if (net.isIPv6(host)) return host;
  // All digits and dots must be a real IPv4 address: 1.2.3 is a typo, not a host name.
  if (!HOST_NAME.test(host) || (/^[\d.]+$/.test(host) && !net.isIPv4(host))) throw bad();
  return host;
}

/** `[scheme://]HOST[:PORT]`; `what` names the input in errors (e.g. `--count-via "x"`). */
export function parseServerAddress(text: string, what: string, opts: { requireScheme?: boolean } = {}): ParsedAddress {
  let rest = text.trim();
  let scheme: string | undefined;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    if (!(scheme in SCHEME_TLS)) throw new UserError(`${what}: unknown scheme ${scheme}://; known: ${SERVER_SCHEMES.map((s) => `${s}://`).join(', ')}`);
    rest = rest.slice(m[0].length).replace(/\/$/, '');
  } else if (opts.requireScheme) {
    throw new UserError(`${what}: expected electrum://HOST[:PORT] or electrums://HOST[:PORT] (TLS), or ws:// or wss:// (WebSocket)`);
  }
  const tls = scheme !== undefined && SCHEME_TLS[scheme];
  let hostText: string;
  let portText: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw new UserError(`${what}: the IPv6 address's bracket is never closed`);
    hostText = rest.slice(0, close + 1);
    const after = rest.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith(':')) throw new UserError(`${what}: expected :PORT after ${hostText}`);
      portText = after.slice(1);
    }
  } else {
    const colons = rest.split(':').length - 1;
    if (colons > 1) throw new UserError(`${what}: an IPv6 address goes in brackets, e.g. [::1]:50001`);
    [hostText, portText] = colons === 1 ? rest.split(':') : [rest, undefined];
  }
  if (hostText === '') throw new UserError(`${what}: no host`);
  const host = checkHost(hostText, what);
  const websocket = scheme !== undefined && WEBSOCKET_SCHEMES.includes(scheme);
  const out: ParsedAddress = { host, tls, ...(websocket ? { websocket } : {}), ...(scheme !== undefined ? { scheme } : {}) };
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText)) throw new UserError(`${what}: port must be 1..65535, got ${JSON.stringify(portText)}`);
    out.port = checkPort(Number(portText), what);
  }
  return out;
}

/** `[LABEL=]PROFILE[@[scheme://]HOST[:PORT]]`, as `--server` takes it. */
export function parseServerSpec(spec: string, what = '--server'): ServerSpec {
  const m = SPEC.exec(spec.trim());
  if (!m) throw new UserError(`${what}: cannot parse ${JSON.stringify(spec)}; expected ${SPEC_SYNTAX}`);
  const [, label, profile, address] = m;
  const out: ServerSpec = { profile, ...(label !== undefined ? { label } : {}) };
  if (address !== undefined) out.address = parseServerAddress(address, `${what} ${JSON.stringify(spec)}`);
  return out;
}

/** A host as it appears before `:PORT`: an IPv6 address in brackets. */
export function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export function formatHostPort(host: string, port: number): string {
  return `${formatHost(host)}:${port}`;
}

/**
 * `electrum://` / `electrums://` (the dataset's and lab's spelling) or `tcp://` / `ssl://` (the
 * bench's, as stored in results databases: changing it would make old and new runs differ); an
 * address over WebSocket is `ws://` / `wss://` in either.
 */
export function formatServerUrl(a: ServerAddress, style: 'electrum' | 'tcp' | 'ws' | 'http' = 'electrum'): string {
  const scheme =
    style === 'http'
      ? a.tls ? 'https' : 'http'
      : a.websocket || style === 'ws'
        ? a.tls ? 'wss' : 'ws'
        : style === 'electrum'
          ? a.tls ? 'electrums' : 'electrum'
          : a.tls ? 'ssl' : 'tcp';
  return `${scheme}://${formatHostPort(a.host, a.port)}`;
}
