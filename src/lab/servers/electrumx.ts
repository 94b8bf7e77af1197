/**
 * ElectrumX (e-x 2.0) from the lab's venv, configured only through its environment (it reads no
 * config file). It talks to the adapter, never to btcd: e-x 2.0 needs Core's getnetworkinfo,
 * getindexinfo and fee fields that btcd lacks. Its index lives in a wiped directory: every `up` is
 * a fresh chain. Note: electrumx_server exits 0 even after "terminated abnormally", so the lab
 * judges readiness by its tip, never by its exit code.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { labCertificateFiles } from '../certificates';
import type { LabContext, LabServer, Launch, Polling } from './lab-server';
import { makeDirs } from '../../core/output-path';
import { electrumxLimits } from '../../servers/known-limits';

const VERSION = '2.0.0';

/**
 * Its default of 1,000 sessions stops it accepting connections at 1,000 (session.py pauses the
 * listeners): `load --hold 1000` and more must reach it.
 */
const LAB_MAX_SESSIONS = '20000';

/** Where install-lab.sh puts a release's venv (`electrumx@1.20.0` beside the lab's own). */
function venvOf(home: string, version: string): string {
  return path.join(home, `electrumx-${version}`);
}

/**
 * The Electrum, TLS and WebSocket (the lab's own only) and admin RPC listeners of one ElectrumX.
 * ws:// and wss:// are served by aiorpcx's WSTransport, which needs the `websockets` package
 * (aiorpcx[ws], which e-x 2.0 requires; install-lab.sh checks for it), and are not padded.
 */
function services(host: string, ports: { electrum: number; rpc: number; tls?: number; ws?: number; wss?: number }): string {
  const tls = ports.tls === undefined ? [] : [`ssl://${host}:${ports.tls}`];
  const ws = ports.ws === undefined || ports.wss === undefined ? [] : [`ws://${host}:${ports.ws}`, `wss://${host}:${ports.wss}`];
  return [`tcp://${host}:${ports.electrum}`, ...tls, ...ws, `rpc://${host}:${ports.rpc}`].join(',');
}

function electrumxEnv(lab: LabContext, dbDir: string, listeners: string, tls: boolean): NodeJS.ProcessEnv {
  const { cfg, creds } = lab;
  const certificates = labCertificateFiles(lab.paths);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    COIN: 'Bitcoin',
    NET: 'regtest',
    DB_ENGINE: 'leveldb', // no default in e-x 2.0
    DB_DIRECTORY: dbDir,
    DAEMON_URL: `http://${creds.user}:${creds.password}@${cfg.host}:${cfg.ports.adapter}/`,
    SERVICES: listeners,
    // Required by e-x once an ssl:// or wss:// service is listed (env.py); made by certificates.ts at `up`.
    ...(tls ? { SSL_CERTFILE: certificates.certFile, SSL_KEYFILE: certificates.keyFile } : {}),
    PEER_DISCOVERY: 'off',
    PEER_ANNOUNCE: 'false',
    // Milliseconds; the default 5 s poll would make every "mine, then assert" wait seconds.
    DAEMON_POLL_INTERVAL_BLOCKS: '200',
    DAEMON_POLL_INTERVAL_MEMPOOL: '200',
    // aiorpcx's per-session cost throttling sleeps up to REQUEST_SLEEP (2.5 s) per request once a
    // session has asked for a few large histories: a benchmark would measure the sleep, not the
    // server. 0 turns both limits off (e-x env.py); operators benchmarking their own ElectrumX
    // should do the same, as the README says.
    COST_SOFT_LIMIT: '0',
    COST_HARD_LIMIT: '0',
    // It lowers MAX_SESSIONS to fit its open file limit, which the lab raises to the hard limit
    // (scripts/raise-fd-limit.sh).
    MAX_SESSIONS: LAB_MAX_SESSIONS,
  };
  if (os.userInfo().uid === 0) env.ALLOW_ROOT = '1'; // containers and CI run as root
  return env;
}

/**
 * Runs the venv's unmodified electrumx_server script with one timing constant changed: replies are
 * still padded, but sent at once instead of being held up to 1 s for more data to pad with. The
 * script is run by the venv's own Python: e-x 1.16's is a plain file starting `#!/usr/bin/env
 * python3`, which would find the system's Python, without ElectrumX.
 */
const NO_REPLY_HOLD = [
  'import runpy, sys',
  'try:',
  '    from electrumx.server.transport import PaddedRSTransport',
  '    PaddedRSTransport.WAIT_FOR_BUFFER_GROWTH_SECONDS = 0.0',
  'except ImportError:', // e-x before 1.17 pads nothing, so holds nothing
  '    pass',
  'sys.argv = sys.argv[1:]',
  "runpy.run_path(sys.argv[0], run_name='__main__')",
].join('\n');

/** Says how to run the ElectrumX in `venv` with `env` on `dbDir` (made if missing). */
function launch(lab: LabContext, venv: string, dbDir: string, env: NodeJS.ProcessEnv): Launch {
  makeDirs(dbDir);
  const script = path.join(venv, 'bin', 'electrumx_server');
  return {
    command: path.join(venv, 'bin', 'python3'),
    args: lab.cfg.electrumxReplyHold ? [script] : ['-c', NO_REPLY_HOLD, script],
    env,
  };
}

const datadir = (stateDir: string) => path.join(stateDir, 'electrumx-db');

const POLLING: Polling = { pollMs: 200, how: 'DAEMON_POLL_INTERVAL_BLOCKS=200 ms (the lab\'s; its default is 5 s)' };

export const electrumx: LabServer<'electrumx', 'rpc' | 'tls' | 'ws' | 'wss'> = {
  name: 'electrumx',
  title: 'ElectrumX',
  profile: 'electrumx',
  version: VERSION,
  ports: { electrum: 3, rpc: 4, tls: 7, ws: 16, wss: 17 },
  tls: 'tls',
  websocket: { plain: 'ws', tls: 'wss' },
  install: { target: 'electrumx', path: (home) => venvOf(home, VERSION) },
  datadir,
  start(lab, settings) {
    const dbDir = datadir(lab.cfg.stateDir);
    const env = electrumxEnv(lab, dbDir, services(lab.cfg.host, lab.ports), true);
    return launch(lab, venvOf(lab.cfg.home, VERSION), dbDir, { ...env, ...settings });
  },
  limits: (settings) => electrumxLimits({ MAX_SESSIONS: LAB_MAX_SESSIONS, ...settings }, "the lab's environment"),
  settingsAre: 'env var',
  polling: POLLING,
  index: {
    phases: [
      [/catching up to daemon height/, 'indexing blocks'],
      [/caught up to height/, 'flushing and opening listeners'],
    ],
  },
  // Every e-x release from 1.16 is on PyPI and installs in seconds into a venv of its own. They
  // run with the lab's settings, but plain TCP only.
  otherVersions: {
    example: '1.20.0',
    start: (lab, version, dbDir) => {
      fs.rmSync(dbDir, { recursive: true, force: true });
      return launch(lab, venvOf(lab.cfg.home, version), dbDir, electrumxEnv(lab, dbDir, services(lab.cfg.host, lab.ports), false));
    },
    // e-x 1.16 has no DAEMON_POLL_INTERVAL_BLOCKS (1.17 added it) and polls every 5 s, fixed in block_processor.py.
    polling(version) {
      const [major, minor] = version.split('.').map(Number);
      const before117 = major === 1 && minor < 17;
      return before117 ? { pollMs: 5000, how: 'every 5 s, fixed (e-x before 1.17 has no DAEMON_POLL_INTERVAL_BLOCKS)' } : POLLING;
    },
  },
};
