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
import type { Credentials } from './adapter/credentials';
import { labCertificateFiles } from './certificates';
import { electrumxVenvOf, versionDbDir, versionPorts, type LabConfig, type LabPaths, type LabProcess, type LabVersion, type ServerSettings } from './config';
import { spawnDetached } from './processes';
import { makeDirs } from '../core/output-path';

/** One ElectrumX of the lab: its own (2.0.0, with TLS) or one in another version (`lab up --with`). */
export interface ElectrumxInstance {
  name: LabProcess;
  venv: string;
  dbDir: string;
  /** Its SERVICES: the lab's own also listens with TLS. */
  services: string;
  tls: boolean;
}

export function labElectrumx(cfg: LabConfig, paths: LabPaths): ElectrumxInstance {
  const h = cfg.host;
  return {
    name: 'electrumx',
    venv: cfg.bin.electrumxVenv,
    dbDir: paths.electrumxDir,
    services: `tcp://${h}:${cfg.ports.electrumx},ssl://${h}:${cfg.ports.electrumxTls},rpc://${h}:${cfg.ports.electrumxRpc}`,
    tls: true,
  };
}

/** ElectrumX in another version, on its slot's ports, plain TCP only. */
export function versionElectrumx(cfg: LabConfig, version: LabVersion, slot: number): ElectrumxInstance {
  const ports = versionPorts(cfg, slot);
  return {
    name: version.name,
    venv: electrumxVenvOf(cfg, version.version),
    dbDir: versionDbDir(cfg, version.name),
    services: `tcp://${cfg.host}:${ports.electrum},rpc://${cfg.host}:${ports.rpc}`,
    tls: false,
  };
}

export function electrumxEnv(cfg: LabConfig, paths: LabPaths, creds: Credentials, instance: ElectrumxInstance = labElectrumx(cfg, paths)): NodeJS.ProcessEnv {
  const h = cfg.host;
  const tls = labCertificateFiles(paths);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    COIN: 'Bitcoin',
    NET: 'regtest',
    DB_ENGINE: 'leveldb', // no default in e-x 2.0
    DB_DIRECTORY: instance.dbDir,
    DAEMON_URL: `http://${creds.user}:${creds.password}@${h}:${cfg.ports.adapter}/`,
    SERVICES: instance.services,
    // Required by e-x once an ssl:// service is listed (env.py); made by certificates.ts at `up`.
    ...(instance.tls ? { SSL_CERTFILE: tls.certFile, SSL_KEYFILE: tls.keyFile } : {}),
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
    // Its default of 1,000 sessions stops it accepting connections at 1,000 (session.py pauses the
    // listeners): `load --hold 1000` and more must reach it. It also lowers this to fit its open
    // file limit, which the lab raises to the hard limit (scripts/raise-fd-limit.sh).
    MAX_SESSIONS: '20000',
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

/** Starts ElectrumX on a wiped index directory; returns its pid. Readiness is checked by the caller. */
export function startElectrumx(
  cfg: LabConfig,
  paths: LabPaths,
  creds: Credentials,
  settings: ServerSettings = {},
  instance: ElectrumxInstance = labElectrumx(cfg, paths),
): number {
  fs.rmSync(instance.dbDir, { recursive: true, force: true });
  makeDirs(instance.dbDir);
  const script = path.join(instance.venv, 'bin', 'electrumx_server');
  return spawnDetached(paths, {
    name: instance.name,
    command: path.join(instance.venv, 'bin', 'python3'),
    args: cfg.electrumxReplyHold ? [script] : ['-c', NO_REPLY_HOLD, script],
    env: { ...electrumxEnv(cfg, paths, creds, instance), ...settings },
  });
}
