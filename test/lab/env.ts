/**
 * What tests need to reach the lab that globalSetup brought up: the node's Core-dialect RPC (via the
 * adapter) with its cookie file, each Electrum server's host/port, and the generated dataset.
 * globalSetup writes it to a file because it runs in another context than the test files.
 */
import fs from 'node:fs';
import { labConfig, labPaths, type ElectrumServerName } from '../../src/lab/config';
import type { LabStatus } from '../../src/lab/lab';

export interface LabEnv {
  rpcUrl: string; // http://127.0.0.1:PORT, the adapter in front of btcd
  rpcCookieFile: string; // user:password
  electrum: Record<ElectrumServerName, { host: string; port: number }>;
  electrumxTls: { host: string; port: number; caFile: string }; // ElectrumX's TLS port, signed by the lab CA
  datasetPath: string;
  manifestPath: string;
  seed: string;
  tip: number;
}

export function labEnvFile(): string {
  return labPaths(labConfig()).testEnvFile;
}

export function envFromStatus(s: LabStatus): LabEnv {
  const endpoint = (name: ElectrumServerName) => {
    const e = s.electrum[name];
    if (!e) throw new Error(`lab status has no ${name} endpoint`);
    return { host: e.host, port: e.port };
  };
  if (s.node.tip === null || s.seed === null) throw new Error('the lab is not up');
  const tls = s.electrum.electrumx?.tls;
  if (!tls) throw new Error('lab status has no electrumx TLS endpoint');
  return {
    rpcUrl: s.node.rpcUrl,
    rpcCookieFile: s.node.cookieFile,
    electrum: { electrumx: endpoint('electrumx'), electrs: endpoint('electrs') },
    electrumxTls: { host: tls.host, port: tls.port, caFile: tls.caFile },
    datasetPath: s.datasetPath,
    manifestPath: s.manifestPath,
    seed: s.seed,
    tip: s.node.tip,
  };
}

export function labEnv(): LabEnv {
  const file = labEnvFile();
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LabEnv;
  } catch (err) {
    throw new Error(`no lab test environment at ${file} (jest's globalSetup test/lab/global-setup.ts writes it): ${(err as Error).message}`);
  }
}
