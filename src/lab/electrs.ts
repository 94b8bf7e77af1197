/**
 * electrs 0.12, pointed at the adapter: JSON-RPC with the lab credentials plus unauthenticated
 * Bitcoin Core REST for blocks (its `bindex` crate). electrs takes credentials only from a config
 * file or a cookie file, so the lab writes a 0600 TOML with `auth` and skips electrs' default
 * config files (./electrs.toml, ~/.electrs/config.toml, /etc/electrs/config.toml).
 */
import fs from 'node:fs';
import type { Credentials } from './adapter/credentials';
import type { LabConfig, LabPaths, ServerSettings } from './config';
import { spawnDetached } from './processes';
import { makeDirs } from '../core/output-path';

export function electrsArgs(cfg: LabConfig, paths: LabPaths, settings: ServerSettings = {}): string[] {
  const h = cfg.host;
  const args = [
    '--skip-default-conf-files',
    '--conf',
    paths.electrsConf,
    '--network',
    'regtest',
    '--daemon-rpc-addr',
    `${h}:${cfg.ports.adapter}`,
    '--electrum-rpc-addr',
    `${h}:${cfg.ports.electrs}`,
    '--monitoring-addr',
    `${h}:${cfg.ports.electrsMonitoring}`,
    '--db-dir',
    paths.electrsDir,
    // electrs has no block notification from the adapter: it polls, every 10 s by default.
    '--wait-duration-secs',
    '1',
    '--log-filters',
    'INFO',
  ];
  for (const [name, value] of Object.entries(settings)) args.push(`--${name}`, value);
  return args;
}

/** Starts electrs on a wiped index directory; returns its pid. Readiness is checked by the caller. */
export function startElectrs(cfg: LabConfig, paths: LabPaths, creds: Credentials, settings: ServerSettings = {}): number {
  fs.rmSync(paths.electrsDir, { recursive: true, force: true });
  makeDirs(paths.electrsDir);
  fs.rmSync(paths.electrsConf, { force: true });
  fs.writeFileSync(paths.electrsConf, `auth = "${creds.user}:${creds.password}"\n`, { mode: 0o600 });
  return spawnDetached(paths, { name: 'electrs', command: cfg.bin.electrs, args: electrsArgs(cfg, paths, settings) });
}
