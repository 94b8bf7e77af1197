/**
 * Turns the checked ground truth into the two outputs: the JSONL dataset (shared DatasetLine
 * fields only, sorted by txCount) and the manifest with every per-address expectation.
 */
import type { DatasetLine } from '../../dataset/line';
import type { Owner } from './keys';
import { GENERATOR_NAME, GENERATOR_VERSION, LabManifest, ManifestAddress, MANIFEST_FORMAT } from './manifest';
import { datasetText, sha256Hex } from './output';
import type { AddressPlan, Plan, Profile } from './plan';
import type { ScriptTruth } from './truth';
import type { WalkResult } from './walk';

export interface AssembleInput {
  seed: string;
  plan: Plan;
  addresses: Array<{ plan: AddressPlan; owner: Owner; truth: ScriptTruth }>;
  walk: WalkResult;
  datasetFile: string;
  mempoolTxs: number;
  generatedTransactions: number;
  mempoolTransactions: number;
  miningAddress: string;
}

export function assemble(input: AssembleInput): { text: string; manifest: LabManifest } {
  const rows: ManifestAddress[] = input.addresses.map(({ plan, owner, truth }) => ({
    address: owner.address,
    type: plan.kind,
    profile: plan.profile,
    historyLength: truth.txCount + truth.mempoolTxCount,
    ...truth,
  }));
  // Ties broken by address so the file's bytes depend on the seed alone.
  rows.sort((a, b) => a.txCount - b.txCount || (a.address < b.address ? -1 : 1));
  const lines: DatasetLine[] = rows.map((r) => ({
    address: r.address,
    scripthash: r.scripthash,
    type: r.type,
    txCount: r.txCount,
    utxoCount: r.utxoCount,
    balance: r.balance,
  }));
  const text = datasetText(lines);
  const byType: LabManifest['counts']['byType'] = {};
  const byProfile: Record<Profile, number> = { hold: 0, mixed: 0, drained: 0 };
  for (const r of rows) {
    byType[r.type] = (byType[r.type] ?? 0) + 1;
    byProfile[r.profile]++;
  }
  const maxTxCount = input.plan.ladder[input.plan.ladder.length - 1];
  const manifest: LabManifest = {
    format: MANIFEST_FORMAT,
    seed: input.seed,
    network: 'regtest',
    tipHeight: input.walk.tipHeight,
    tipHash: input.walk.tipHash,
    createdAt: new Date().toISOString(),
    generator: { name: GENERATOR_NAME, version: GENERATOR_VERSION, maxTxCount, mempoolTxs: input.mempoolTxs, ladder: input.plan.ladder },
    miningAddress: input.miningAddress,
    dataset: { file: input.datasetFile, lines: lines.length, sha256: sha256Hex(text) },
    chain: {
      blocks: input.walk.blocks,
      transactions: input.walk.transactions,
      generatedTransactions: input.generatedTransactions,
      mempoolTransactions: input.mempoolTransactions,
      maxTxCount: Math.max(...rows.map((r) => r.txCount)),
    },
    counts: { byType, byProfile },
    headers: input.walk.headers,
    addresses: rows,
  };
  return { text, manifest };
}
