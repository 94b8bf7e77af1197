/**
 * Servers the lab also runs in another version beside its own, on the same chain (`lab up --with
 * electrumx@1.20.0`): those whose file says which (`otherVersions`), named `SERVER-VERSION`
 * (`electrumx-1.20.0`) wherever they show, each on a slot of ports of its own.
 */
import path from 'node:path';
import type { LabConfig } from './config';
import { LAB_SERVERS, type LabServerName } from './servers/registry';

export const VERSIONED_SERVERS: readonly LabServerName[] = LAB_SERVERS.filter((s) => s.otherVersions).map((s) => s.name);
/** A server in another version is named `SERVER-VERSION` (`electrumx-1.20.0`) wherever it shows. */
export type VersionName = `${LabServerName}-${string}`;

export interface LabVersion {
  server: LabServerName;
  version: string;
  name: VersionName;
}

/** Ports per server in another version (its Electrum port, then its admin RPC), from `versionsBase`. */
export const VERSION_PORTS = 2;
export const MAX_VERSIONS = 5;

/** `electrumx@1.20.0` → the version it names; a string when the text is not one (the problem). */
export function parseLabVersion(text: string): LabVersion | string {
  const example = LAB_SERVERS.flatMap((s) => (s.otherVersions ? [`${s.name}@${s.otherVersions.example}`] : []))[0];
  const m = /^([a-z]+)@(\d+\.\d+\.\d+)$/.exec(text);
  if (!m) return `--with: ${JSON.stringify(text)} is not SERVER@VERSION (e.g. ${example})`;
  const server = LAB_SERVERS.find((s) => s.name === m[1] && s.otherVersions);
  if (!server) {
    return `--with: the lab runs other versions of ${VERSIONED_SERVERS.join(', ')} only, not ${JSON.stringify(m[1])}, in ${JSON.stringify(text)}`;
  }
  const version = m[2];
  if (version === server.version) return `--with: ${text} is the lab's own ${server.title}; name another version (e.g. ${server.name}@${server.otherVersions!.example})`;
  return { server: server.name, version, name: `${server.name}-${version}` };
}

/** What is wrong with a set of versions asked for together (each problem a line naming it). */
export function versionProblems(versions: readonly LabVersion[]): string[] {
  const names = versions.map((v) => v.name);
  const twice = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  return [
    ...twice.map((n) => `--with: ${n} is asked for twice`),
    ...(new Set(names).size > MAX_VERSIONS ? [`--with: at most ${MAX_VERSIONS} servers in other versions, got ${new Set(names).size}`] : []),
  ];
}

/** The Electrum and admin RPC ports of the server in another version that holds `slot`. */
export function versionPorts(cfg: LabConfig, slot: number): { electrum: number; rpc: number } {
  const first = cfg.ports.versionsBase + slot * VERSION_PORTS;
  return { electrum: first, rpc: first + 1 };
}

/** A server in another version keeps its index beside the lab's own, wiped at each start as theirs are. */
export function versionDbDir(cfg: LabConfig, name: VersionName): string {
  return path.join(cfg.stateDir, `${name}-db`);
}

/** A name of the form `SERVER-VERSION`, as a pid file of a server in another version is named. */
export function isVersionName(name: string): name is VersionName {
  return /^[a-z]+-\d+\.\d+\.\d+$/.test(name);
}

/** The server in another version of that name, if it is one, for its polling setup. */
export function versionOf(name: string): { server: LabServerName; version: string } | undefined {
  const m = /^([a-z]+)-(\d+\.\d+\.\d+)$/.exec(name);
  const server = m ? LAB_SERVERS.find((s) => s.name === m[1] && s.otherVersions) : undefined;
  return server && m ? { server: server.name, version: m[2] } : undefined;
}
