/**
 * Every lab setting in one place: where installs are cached, where a running lab keeps its state,
 * and which loopback ports it binds. All ports derive from one base so two labs never overlap.
 */
import path from 'node:path';
import { benchHome } from '../core/bench-home';

// Esplora (Blockstream's electrs) and Fulcrum are in no registry: scripts/install-lab.sh builds them
// from source at these commits and caches the binary under the commit's first 7 digits.
export const VERSIONS = {
  btcd: 'v0.24.2',
  electrumx: '2.0.0',
  electrs: '0.12.0',
  esplora: 'abfbce73eb0504630a09f1e6599114ef4fa25bda',
  fulcrum: '01ed27b200d0edd41235910243800c5a0be15391',
  /** The real BDK wallet (PyPI bdkpython, bdk_electrum 0.24) the bdk workload is held to. */
  bdkpython: '3.1.1',
  /** The real Electrum wallet the electrum workload is held to, from a source archive (mirror/electrum-4.8.1.tar.gz). */
  electrum: '4.8.1',
} as const;

export interface LabPorts {
  btcdP2p: number;
  btcdRpc: number;
  adapter: number; // Core-dialect JSON-RPC + REST in front of btcd
  electrumx: number;
  electrumxRpc: number;
  electrs: number;
  electrsMonitoring: number;
  electrumxTls: number; // the same ElectrumX, over TLS with the lab's own CA
  esplora: number; // Esplora's Electrum port
  esploraHttp: number; // Esplora's REST API
  esploraMonitoring: number;
  fulcrum: number;
  fulcrumTls: number; // with the lab CA, like ElectrumX's
  fulcrumAdmin: number;
  fulcrumStats: number;
  /** Prometheus (Debian's package): scrapes the servers' metrics and takes the generator's remote-write. */
  prometheus: number;
  /** The first of the ports of servers run in other versions (`lab up --with`): VERSION_PORTS each. */
  versionsBase: number;
}

export interface LabConfig {
  home: string; // install cache: $ELECTRUM_BENCH_HOME
  stateDir: string; // a running lab's datadirs, logs, pid files, credentials
  host: '127.0.0.1';
  ports: LabPorts;
  bin: { btcd: string; btcctl: string; electrumxVenv: string; electrs: string; esplora: string; fulcrum: string; bdkPython: string; electrum: string; prometheus: string };
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
    ports: {
      btcdP2p: base,
      btcdRpc: base + 1,
      adapter: base + 2,
      electrumx: base + 3,
      electrumxRpc: base + 4,
      electrs: base + 5,
      electrsMonitoring: base + 6,
      electrumxTls: base + 7,
      esplora: base + 8,
      esploraHttp: base + 9,
      esploraMonitoring: base + 10,
      fulcrum: base + 11,
      fulcrumTls: base + 12,
      fulcrumAdmin: base + 13,
      fulcrumStats: base + 14,
      prometheus: base + 15,
      versionsBase: base + 20,
    },
    bin: {
      btcd: path.join(home, `btcd-${VERSIONS.btcd}`, 'bin', 'btcd'),
      btcctl: path.join(home, `btcd-${VERSIONS.btcd}`, 'bin', 'btcctl'),
      electrumxVenv: path.join(home, `electrumx-${VERSIONS.electrumx}`),
      electrs: path.join(home, `electrs-${VERSIONS.electrs}`, 'bin', 'electrs'),
      esplora: path.join(home, `esplora-${VERSIONS.esplora.slice(0, 7)}`, 'bin', 'electrs'),
      fulcrum: path.join(home, `fulcrum-${VERSIONS.fulcrum.slice(0, 7)}`, 'bin', 'Fulcrum'),
      bdkPython: path.join(home, `bdk-${VERSIONS.bdkpython}`, 'bin', 'python'),
      electrum: path.join(home, `electrum-${VERSIONS.electrum}`, 'bin', 'electrum'),
      // A distribution package, not a cached build: the one Debian ships (2.42 on bookworm).
      prometheus: env.ELECTRUM_BENCH_PROMETHEUS || '/usr/bin/prometheus',
    },
  };
}

/** The lab's processes, in start order; `down` stops them in reverse. */
export const LAB_COMPONENTS = ['btcd', 'adapter', 'electrumx', 'electrs', 'esplora', 'fulcrum', 'prometheus'] as const;
export type LabComponent = (typeof LAB_COMPONENTS)[number];
export const LAB_SERVERS = ['electrumx', 'electrs', 'esplora', 'fulcrum'] as const;
export type ElectrumServerName = (typeof LAB_SERVERS)[number];
/** What `lab up --without` can leave out: any Electrum server, and Prometheus. */
export const LAB_OPTIONAL = [...LAB_SERVERS, 'prometheus'] as const;
export type LabOptional = (typeof LAB_OPTIONAL)[number];

/**
 * Servers the lab can also run in another version beside its own, on the same chain (`lab up
 * --with electrumx@1.20.0`): ElectrumX, because every e-x release from 1.16 is on PyPI and
 * installs in seconds into a venv of its own.
 */
export const VERSIONED_SERVERS = ['electrumx'] as const;
export type VersionedServer = (typeof VERSIONED_SERVERS)[number];
/** A server in another version is named `SERVER-VERSION` (`electrumx-1.20.0`) wherever it shows. */
export type VersionName = `${VersionedServer}-${string}`;
/** What the lab starts, stops and logs by name: its components and servers in other versions. */
export type LabProcess = LabComponent | VersionName;

export interface LabVersion {
  server: VersionedServer;
  version: string;
  name: VersionName;
}

/** Ports per server in another version (its Electrum port, then its admin RPC), from `versionsBase`. */
export const VERSION_PORTS = 2;
export const MAX_VERSIONS = 5;

/** `electrumx@1.20.0` → the version it names; a string when the text is not one (the problem). */
export function parseLabVersion(text: string): LabVersion | string {
  const m = /^([a-z]+)@(\d+\.\d+\.\d+)$/.exec(text);
  if (!m) return `--with: ${JSON.stringify(text)} is not SERVER@VERSION (e.g. electrumx@1.20.0)`;
  const server = m[1];
  if (!(VERSIONED_SERVERS as readonly string[]).includes(server)) {
    return `--with: the lab runs other versions of ${VERSIONED_SERVERS.join(', ')} only, not ${JSON.stringify(server)}, in ${JSON.stringify(text)}`;
  }
  const version = m[2];
  if (server === 'electrumx' && version === VERSIONS.electrumx) return `--with: ${text} is the lab's own ElectrumX; name another version (e.g. electrumx@1.20.0)`;
  return { server: server as VersionedServer, version, name: `${server as VersionedServer}-${version}` };
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

/** Where a version's install lives in the cache (as the lab's own: `electrumx-2.0.0`). */
export function electrumxVenvOf(cfg: LabConfig, version: string): string {
  return path.join(cfg.home, `electrumx-${version}`);
}

/** A server in another version keeps its index beside the lab's own, wiped at each start as theirs are. */
export function versionDbDir(cfg: LabConfig, name: VersionName): string {
  return path.join(cfg.stateDir, `${name}-db`);
}

/**
 * Settings a lab server is started with beyond the lab's own (a fault test's limit, a sweep's
 * value): ElectrumX takes them as environment variables, electrs and Esplora as `--NAME VALUE`
 * flags, Fulcrum as `NAME = VALUE` lines of its config file.
 */
export type ServerSettings = Record<string, string>;

export const LAB_DEFAULT_SEED = 'electrum-bench-lab';

export const LAB_TIMEOUTS = {
  readyMs: 120_000, // each component must be ready (tip matched) within this
  stopMs: 10_000, // SIGTERM grace before SIGKILL
  installMs: 90 * 60_000, // install-lab.sh may build electrs, Esplora and Fulcrum (~55 min on 2 cores)
};

/** Every file a running lab writes, all under `stateDir` so `down` and `reset` know what is theirs. */
export interface LabPaths {
  stateFile: string; // lab.json: seed, credentials file, dataset paths of the running lab
  cpusFile: string; // the CPUs its processes run on (`lab up --cpus`); absent: any
  cookieFile: string; // user:password for the adapter (and btcd behind it), mode 0600
  pidDir: string;
  logDir: string;
  btcdDir: string;
  electrumxDir: string;
  electrsDir: string;
  electrsConf: string; // holds `auth`, mode 0600: electrs takes credentials only from a file
  esploraDir: string; // its index, and the daemon dir where it reads the lab cookie (regtest/.cookie)
  fulcrumDir: string;
  fulcrumConf: string;
  prometheusDir: string; // its config file and its TSDB, wiped at each start
  tlsDir: string; // the lab's CA certificate and ElectrumX's server certificate + key (certificates.ts)
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
    electrumxDir: path.join(s, 'electrumx-db'),
    electrsDir: path.join(s, 'electrs-db'),
    electrsConf: path.join(s, 'electrs.toml'),
    esploraDir: path.join(s, 'esplora'),
    fulcrumDir: path.join(s, 'fulcrum-db'),
    fulcrumConf: path.join(s, 'fulcrum.conf'),
    prometheusDir: path.join(s, 'prometheus'),
    tlsDir: path.join(s, 'tls'),
    testEnvFile: path.join(s, 'test-env.json'),
    datasetPath: path.join(data, 'regtest-lab.jsonl'),
    manifestPath: path.join(data, 'regtest-lab.manifest.json'),
    walletsPath: path.join(data, 'regtest-lab-wallets.jsonl'),
  };
}
