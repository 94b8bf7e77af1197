/**
 * The lab dataset's manifest: what the chain holds and, per dataset address, exactly what an
 * Electrum server must answer. The JSONL dataset carries only the shared DatasetLine fields; tests
 * and the bench read the richer expectations from here.
 */
import fs from 'node:fs';
import type { AddressType } from '../../core/dataset-line';
import { UserError } from '../../core/user-error';
import type { Profile } from './plan';
import type { ScriptTruth } from './truth';

export const MANIFEST_FORMAT = 'electrum-bench/lab-manifest@1';
export const GENERATOR_NAME = 'electrum-bench/lab-generator';
// Bump whenever the same seed would produce a different dataset.
export const GENERATOR_VERSION = '1.1.0';

export interface ManifestAddress extends ScriptTruth {
  address: string;
  type: AddressType;
  profile: Profile;
  /** Expected blockchain.scripthash.get_history length: confirmed + mempool. */
  historyLength: number;
}

export interface LabManifest {
  format: typeof MANIFEST_FORMAT;
  seed: string;
  network: 'regtest';
  tipHeight: number;
  tipHash: string;
  createdAt: string;
  generator: { name: string; version: string; maxTxCount: number; mempoolTxs: number; ladder: number[] };
  miningAddress: string;
  dataset: { file: string; lines: number; sha256: string };
  chain: {
    blocks: number; // including genesis
    transactions: number; // confirmed, coinbases included
    generatedTransactions: number; // made by the generator, confirmed
    mempoolTransactions: number;
    maxTxCount: number; // longest confirmed history in the dataset
  };
  counts: { byType: Partial<Record<AddressType, number>>; byProfile: Record<Profile, number> };
  /** Every block header (80 bytes, hex) by height, genesis first: what the bench's wallet calls are checked against. */
  headers: string[];
  addresses: ManifestAddress[]; // in dataset order
}

export function readManifest(file: string): LabManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`cannot read lab manifest ${file}: ${(err as Error).message}`);
  }
  const m = parsed as Partial<LabManifest>;
  if (m.format !== MANIFEST_FORMAT || !Array.isArray(m.addresses)) {
    throw new UserError(`${file} is not a lab manifest (format ${JSON.stringify(m.format)})`);
  }
  return m as LabManifest;
}
