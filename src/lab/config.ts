/**
 * Every lab setting in one place: where installs are cached, where a running lab keeps its state,
 * and which loopback ports it binds. All ports derive from one base so two labs never overlap.
 */
import path from 'node:path';
import { benchHome } from '../core/bench-home';

/** The lab's own infrastructure and the real wallets; each server's version is in its file (src/lab/servers/). */
export const VERSIONS = {
  btcd: 'v0.24.2',
  /** The real BDK wallet (PyPI bdkpython, bdk_electrum 0.24) the bdk workload is held to. */
  bdkpython: '3.1.1',
  /** The real Electrum wallet the electrum workload is held to, from a source archive (mirror/electrum-4.8.1.tar.gz). */
  electrum: '4.8.1',
} as const;

/**
 * The ports of the lab's infrastructure. A server's are offsets in its own file (src/lab/servers/),
 * between these: +3 to +19 are taken, +20 to +29 are the other versions', +30 to +32 taken, +33 on
 * free (test/unit/lab/servers/registry.test.ts keeps them apart).
 */
export interface LabPorts {
  btcdP2p: number;
  btcdRpc: number;
  adapter: number; // Core-dialect JSON-RPC + REST in front of btcd
  /** Prometheus (Debian's package): scrapes the servers' metrics and takes the generator's remote-write. */
  prometheus: number;
  /** The first of the ports of servers run in other versions (`lab up --with`): VERSION_PORTS each. */
  versionsBase: number;
}

export interface LabConfig {
  home: string; // install cache: $ELECTRUM_BENCH_HOME
  stateDir: string; // a running lab's datadirs, logs, pid files, credentials
  host: '127.0.0.1';
  /** ELECTRUM_BENCH_LAB_PORT_BASE: every port of the lab is this plus an offset. */
  portBase: number;
  ports: LabPorts;
  bin: { btcd: string; btcctl: string; bdkPython: string; electrum: string; prometheus: string };
  /**
   * ElectrumX 2.0 pads TCP replies and holds a small reply up to 1 s waiting for more (a
   * traffic-analysis countermeasure, electrumx/server/transport.py). Off in the lab unless
   * ELECTRUM_BENCH_ELECTRUMX_PADDING=on: with it, a sequential bench measures that 1 s hold.
   */
  electrumxReplyHold: boolean;
}

export function labConfig(env: NodeJS.ProcessEnv = process.env): LabConfig {
  const home = benchHome(env);
  const stateDir = env.ELECTRUM_BENCH_LAB_DIR || path.join(home, 'lab');
  const base = Number(env.ELECTRUM_BENCH_LAB_PORT_BASE || 28400);
  if (!Number.isInteger(base) || base < 1024 || base > 65000) {
    throw new Error(`ELECTRUM_BENCH_LAB_PORT_BASE must be an integer in 1024..65000, got ${env.ELECTRUM_BENCH_LAB_PORT_BASE}`);
  }
  return {
    home,
    stateDir,
    host: '127.0.0.1',
    electrumxReplyHold: env.ELECTRUM_BENCH_ELECTRUMX_PADDING === 'on',
    portBase: base,
    ports: {
      btcdP2p: base,
      btcdRpc: base + 1,
      adapter: base + 2,
      prometheus: base + 15,
      versionsBase: base + 20,
    },
    bin: {
      btcd: path.join(home, `btcd-${VERSIONS.btcd}`, 'bin', 'btcd'),
      btcctl: path.join(home, `btcd-${VERSIONS.btcd}`, 'bin', 'btcctl'),
      bdkPython: path.join(home, `bdk-${VERSIONS.bdkpython}`, 'bin', 'python'),
      electrum: path.join(home, `electrum-${VERSIONS.electrum}`, 'bin', 'electrum'),
      // A distribution package, not a cached build: the one Debian ships (2.42 on bookworm).
      prometheus: env.ELECTRUM_BENCH_PROMETHEUS || '/usr/bin/prometheus',
    },
  };
}

/**
 * Settings a lab server is started with beyond the lab's own (a fault test's limit, a sweep's
 * value), each server as its `settingsAre` says: ElectrumX as environment variables, electrs and
 * Esplora as `--NAME VALUE` flags, Fulcrum as `NAME = VALUE` lines of its config file.
 */
export type ServerSettings = Record<string, string>;

export const LAB_DEFAULT_SEED = 'electrum-bench-lab';

export const LAB_TIMEOUTS = {
  readyMs: 120_000, // each component must be ready (tip matched) within this
  stopMs: 10_000, // SIGTERM grace before SIGKILL
  installMs: 90 * 60_000, // install-lab.sh may build electrs, Esplora, mempool's electrs and Fulcrum (~67 min on 2 cores)
};

/**
 * Every file a running lab writes, all under `stateDir` so `down` and `reset` know what is theirs;
 * a server's datadir and config files are its own (`datadir` in src/lab/servers/).
 */
export interface LabPaths {
  stateFile: string; // lab.json: seed, credentials file, dataset paths of the running lab
  cpusFile: string; // the CPUs its processes run on (`lab up --cpus`); absent: any
  cookieFile: string; // user:password for the adapter (and btcd behind it), mode 0600
  pidDir: string;
  logDir: string;
  btcdDir: string;
  prometheusDir: string; // its config file and its TSDB, wiped at each start
  tlsDir: string; // the lab's CA certificate and the servers' certificate + key (certificates.ts)
  testEnvFile: string; // written by the test globalSetup for test/lab/env.ts
  datasetPath: string;
  manifestPath: string;
  walletsPath: string;
}

export function labPaths(cfg: LabConfig): LabPaths {
  const s = cfg.stateDir;
  // The dataset belongs to one running chain (its manifest records the tip hash). The default lab
  // writes it into the repository's datasets/; a lab with its own ELECTRUM_BENCH_LAB_DIR keeps its
  // dataset there too, so two labs never overwrite each other's. Read the path from labStatus().
  const own = cfg.stateDir !== labConfig({ ...process.env, ELECTRUM_BENCH_LAB_DIR: '' }).stateDir;
  const data = own ? path.join(s, 'datasets') : path.join(path.resolve(__dirname, '..', '..'), 'datasets');
  return {
    stateFile: path.join(s, 'lab.json'),
    cpusFile: path.join(s, 'cpus'),
    cookieFile: path.join(s, 'rpc.cookie'),
    pidDir: path.join(s, 'run'),
    logDir: path.join(s, 'logs'),
    btcdDir: path.join(s, 'btcd'),
    prometheusDir: path.join(s, 'prometheus'),
    tlsDir: path.join(s, 'tls'),
    testEnvFile: path.join(s, 'test-env.json'),
    datasetPath: path.join(data, 'regtest-lab.jsonl'),
    manifestPath: path.join(data, 'regtest-lab.manifest.json'),
    walletsPath: path.join(data, 'regtest-lab-wallets.jsonl'),
  };
}
