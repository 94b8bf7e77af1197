/**
 * Fulcrum 2.1, configured through a file (mode 0600: it names the lab's cookie file) and pointed at
 * the adapter, whose Core-style `subversion` makes it take the node for Bitcoin (not Bitcoin Cash).
 * It listens on TCP and, with the lab CA's certificate, TLS; plus its admin and stats ports.
 */
import fs from 'node:fs';
import { labCertificateFiles } from './certificates';
import type { LabConfig, LabPaths, ServerSettings } from './config';
import { spawnDetached } from './processes';
import { makeDirs } from '../core/output-path';

export function fulcrumConfig(cfg: LabConfig, paths: LabPaths, settings: ServerSettings): string {
  const h = cfg.host;
  const tls = labCertificateFiles(paths);
  const lines: ServerSettings = {
    datadir: paths.fulcrumDir,
    bitcoind: `${h}:${cfg.ports.adapter}`,
    rpccookie: paths.cookieFile,
    tcp: `${h}:${cfg.ports.fulcrum}`,
    ssl: `${h}:${cfg.ports.fulcrumTls}`,
    cert: tls.fullChainFile,
    key: tls.keyFile,
    admin: `${h}:${cfg.ports.fulcrumAdmin}`,
    stats: `${h}:${cfg.ports.fulcrumStats}`,
    peering: 'false',
    announce: 'false',
    // Its shortest poll: the adapter sends no ZMQ notifications, so Fulcrum learns of blocks by polling.
    polltime: '0.5',
    ...settings,
  };
  return Object.entries(lines).map(([k, v]) => `${k} = ${v}`).join('\n') + '\n';
}

/** Starts Fulcrum on a wiped index; returns its pid. Readiness is checked by the caller. */
export function startFulcrum(cfg: LabConfig, paths: LabPaths, settings: ServerSettings = {}): number {
  fs.rmSync(paths.fulcrumDir, { recursive: true, force: true });
  makeDirs(paths.fulcrumDir);
  fs.rmSync(paths.fulcrumConf, { force: true });
  fs.writeFileSync(paths.fulcrumConf, fulcrumConfig(cfg, paths, settings), { mode: 0o600 });
  return spawnDetached(paths, { name: 'fulcrum', command: cfg.bin.fulcrum, args: [paths.fulcrumConf] });
}
