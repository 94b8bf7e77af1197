/**
 * Every lab setting in one place: where installs are cached, where a running lab keeps its state,
 * and which loopback ports it binds. All ports derive from one base so two labs never overlap.
 */
import os from 'node:os';
import path from 'node:path';

export const VERSIONS = { btcd: 'v0.24.2', electrumx: '2.0.0', electrs: '0.12.0' } as const;

export interface LabPorts {
  btcdP2p: number;
  btcdRpc: number;
  adapter: number; // Core-dialect JSON-RPC + REST in front of btcd
  electrumx: number;
  electrumxRpc: number;
  electrs: number;
  electrsMonitoring: number;
}

export interface LabConfig {
  home: string; // install cache: $ELECTRUM_BENCH_HOME
  stateDir: string; // a running lab's datadirs, logs, pid files, credentials
  host: '127.0.0.1';
  ports: LabPorts;
  bin: { btcd: string; btcctl: string; electrumxVenv: string; electrs: string };
}

export function labConfig(env: NodeJS.ProcessEnv = process.env): LabConfig {
  const home = env.ELECTRUM_BENCH_HOME || path.join(os.homedir(), '.cache', 'electrum-bench');
  const stateDir = env.ELECTRUM_BENCH_LAB_DIR || path.join(home, 'lab');
  const base = Number(env.ELECTRUM_BENCH_LAB_PORT_BASE || 28400);
  if (!Number.isInteger(base) || base < 1024 || base > 65000) {
    throw new Error(`ELECTRUM_BENCH_LAB_PORT_BASE must be an integer in 1024..65000, got ${env.ELECTRUM_BENCH_LAB_PORT_BASE}`);
  }
  return {
    home,
    stateDir,
    host: '127.0.0.1',
    ports: {
      btcdP2p: base,
      btcdRpc: base + 1,
      adapter: base + 2,
      electrumx: base + 3,
      electrumxRpc: base + 4,
      electrs: base + 5,
      electrsMonitoring: base + 6,
    },
    bin: {
      btcd: path.join(home, `btcd-${VERSIONS.btcd}`, 'bin', 'btcd'),
      btcctl: path.join(home, `btcd-${VERSIONS.btcd}`, 'bin', 'btcctl'),
      electrumxVenv: path.join(home, `electrumx-${VERSIONS.electrumx}`),
      electrs: path.join(home, `electrs-${VERSIONS.electrs}`, 'bin', 'electrs'),
    },
  };
}
