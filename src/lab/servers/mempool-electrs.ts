/**
 * mempool.space's fork of Blockstream's electrs (branch `mempool`, 3.1.0-dev), the backend of
 * mempool.space and of many node distributions. Started as Esplora is (esplora.ts): `--jsonrpc-import`
 * against the adapter, the lab cookie in `<daemon-dir>/regtest/.cookie`, the lab's raised limits.
 * It is in no registry: scripts/install-lab.sh builds it from source at this commit (without its
 * optional git patch and its rust-toolchain pin, which this machine cannot fetch).
 */
import path from 'node:path';
import { builtAt, type LabServer } from './lab-server';
import { ELECTRS_FORK_INDEX, ESPLORA_LAB_LIMITS, electrsForkLaunch } from './esplora';
import { mempoolElectrsLimits } from '../../servers/known-limits';

const COMMIT = '80758eac152ff153c2f3ff139470edb7f086b782';

const datadir = (stateDir: string) => path.join(stateDir, 'mempool-electrs');

export const mempoolElectrs: LabServer<'mempool-electrs', 'http' | 'monitoring'> = {
  name: 'mempool-electrs',
  title: "mempool's electrs",
  profile: 'mempool-electrs',
  version: COMMIT,
  // After the ports of servers in other versions (+20 to +29): +3 to +19 were all taken.
  ports: { electrum: 30, http: 31, monitoring: 32 },
  rest: { port: 'http', profile: 'mempool-electrs-rest' },
  metrics: 'monitoring',
  install: { target: 'mempool-electrs', path: (home) => path.join(builtAt(home, 'mempool-electrs', COMMIT), 'bin', 'electrs'), fromSource: true },
  datadir,
  start: (lab, settings) => electrsForkLaunch(mempoolElectrs.install.path(lab.cfg.home), datadir(lab.cfg.stateDir), lab, settings),
  limits: (settings, profile) =>
    mempoolElectrsLimits({ ...ESPLORA_LAB_LIMITS, ...settings }, "the lab's --flags", profile === 'mempool-electrs-rest' ? 'rest' : 'electrum'),
  settingsAre: '--flag',
  // Its main loop waits --main-loop-delay between updates (src/bin/electrs.rs), 500 ms by default.
  polling: { pollMs: 500, how: '--main-loop-delay, its default 500 ms (a SIGUSR1 wakes it early)' },
  index: ELECTRS_FORK_INDEX,
};
