/**
 * Fulcrum 2.1, configured through a file (mode 0600: it names the lab's cookie file) and pointed at
 * the adapter, whose Core-style `subversion` makes it take the node for Bitcoin (not Bitcoin Cash).
 * It listens on TCP and, with the lab CA's certificate, TLS; on WebSocket, plain and with TLS on the
 * same certificate (its `ws` and `wss` keys; `wss_cert` is for a certificate of their own); plus its
 * admin and stats ports.
 * It is in no registry: scripts/install-lab.sh builds it from source at this commit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { labCertificateFiles } from '../certificates';
import type { ServerSettings } from '../config';
import { builtAt, type LabServer } from './lab-server';
import { makeDirs } from '../../core/output-path';
import { fulcrumLimits } from '../../servers/known-limits';

const COMMIT = '01ed27b200d0edd41235910243800c5a0be15391';

/** Its config file: the lab's lines, then a restart's settings. */
export function fulcrumConfFile(stateDir: string): string {
  return path.join(stateDir, 'fulcrum.conf');
}

const datadir = (stateDir: string) => path.join(stateDir, 'fulcrum-db');

export const fulcrum: LabServer<'fulcrum', 'tls' | 'admin' | 'stats' | 'ws' | 'wss'> = {
  name: 'fulcrum',
  title: 'Fulcrum',
  profile: 'fulcrum',
  version: COMMIT,
  ports: { electrum: 11, tls: 12, admin: 13, stats: 14, ws: 18, wss: 19 },
  tls: 'tls',
  websocket: { plain: 'ws', tls: 'wss' },
  install: { target: 'fulcrum', path: (home) => path.join(builtAt(home, 'fulcrum', COMMIT), 'bin', 'Fulcrum'), fromSource: true },
  datadir,
  start({ cfg, paths, ports }, settings) {
    const dir = datadir(cfg.stateDir);
    const conf = fulcrumConfFile(cfg.stateDir);
    const h = cfg.host;
    const tls = labCertificateFiles(paths);
    const lines: ServerSettings = {
      datadir: dir,
      bitcoind: `${h}:${cfg.ports.adapter}`,
      rpccookie: paths.cookieFile,
      tcp: `${h}:${ports.electrum}`,
      ssl: `${h}:${ports.tls}`,
      ws: `${h}:${ports.ws}`,
      wss: `${h}:${ports.wss}`,
      cert: tls.fullChainFile,
      key: tls.keyFile,
      admin: `${h}:${ports.admin}`,
      stats: `${h}:${ports.stats}`,
      peering: 'false',
      announce: 'false',
      // Its shortest poll: the adapter sends no ZMQ notifications, so Fulcrum learns of blocks by polling.
      polltime: '0.5',
      ...settings,
    };
    makeDirs(dir);
    fs.rmSync(conf, { force: true });
    fs.writeFileSync(conf, Object.entries(lines).map(([k, v]) => `${k} = ${v}`).join('\n') + '\n', { mode: 0o600 });
    return { command: fulcrum.install.path(cfg.home), args: [conf] };
  },
  // The lab's fulcrum.conf sets none of its limits: Fulcrum's defaults, unless a restart's settings do.
  limits: (settings) => fulcrumLimits(settings, "the lab's fulcrum.conf"),
  settingsAre: 'config key',
  polling: { pollMs: 500, how: 'polltime = 0.5 s (the lab\'s; its default is 2 s)' },
  index: {
    phases: [
      [/downloading new blocks/, 'downloading and indexing blocks'],
      [/Processed \d+ new blocks/, 'merkle cache and listeners'],
    ],
  },
};
