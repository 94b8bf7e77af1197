/**
 * electrs 0.12, pointed at the adapter: JSON-RPC with the lab credentials plus unauthenticated
 * Bitcoin Core REST for blocks (its `bindex` crate). electrs takes credentials only from a config
 * file or a cookie file, so the lab writes a 0600 TOML with `auth` and skips electrs' default
 * config files (./electrs.toml, ~/.electrs/config.toml, /etc/electrs/config.toml).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LabServer } from './lab-server';
import { makeDirs } from '../../core/output-path';
import { electrsLimits } from '../../servers/known-limits';

const VERSION = '0.12.0';

/** Holds `auth`, mode 0600: electrs takes credentials only from a file. */
export function electrsConfFile(stateDir: string): string {
  return path.join(stateDir, 'electrs.toml');
}

const datadir = (stateDir: string) => path.join(stateDir, 'electrs-db');

export const electrs: LabServer<'electrs', 'monitoring'> = {
  name: 'electrs',
  title: 'electrs',
  profile: 'electrs',
  version: VERSION,
  ports: { electrum: 5, monitoring: 6 },
  metrics: 'monitoring',
  install: { target: 'electrs', path: (home) => path.join(home, `electrs-${VERSION}`, 'bin', 'electrs') },
  datadir,
  start({ cfg, creds, ports }, settings) {
    const dbDir = datadir(cfg.stateDir);
    const conf = electrsConfFile(cfg.stateDir);
    makeDirs(dbDir);
    fs.rmSync(conf, { force: true });
    fs.writeFileSync(conf, `auth = "${creds.user}:${creds.password}"\n`, { mode: 0o600 });
    const h = cfg.host;
    const args = [
      '--skip-default-conf-files',
      '--conf',
      conf,
      '--network',
      'regtest',
      '--daemon-rpc-addr',
      `${h}:${cfg.ports.adapter}`,
      '--electrum-rpc-addr',
      `${h}:${ports.electrum}`,
      '--monitoring-addr',
      `${h}:${ports.monitoring}`,
      '--db-dir',
      dbDir,
      // electrs has no block notification from the adapter: it polls, every 10 s by default.
      '--wait-duration-secs',
      '1',
      '--log-filters',
      'INFO',
    ];
    for (const [name, value] of Object.entries(settings)) args.push(`--${name}`, value);
    return { command: electrs.install.path(cfg.home), args };
  },
  limits: () => electrsLimits(),
  settingsAre: '--flag',
  polling: { pollMs: 1000, how: '--wait-duration-secs 1 (the lab\'s; its default is 10 s)' },
  // electrs 0.12 serves its Electrum port before it has read a single header, and a
  // blockchain.headers.subscribe in that window kills it (electrum.rs, headers_subscribe:
  // tip_height().unwrap() on an empty chain); the tip's header is refused, not fatal, until then.
  beforeTip: (ask, tip) => ask([{ method: 'blockchain.block.header', params: [tip] }]),
  index: {
    // bindex says when it opens its database and when it has indexed, not when it starts indexing.
    phases: [
      [/bindex::chain\] index:|bindex::db\] CF /, 'opening the index and indexing blocks'],
      [/indexed \d+ blocks/, 'compaction and first sync'],
    ],
  },
};
