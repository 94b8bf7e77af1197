/** The lab chain generator: a deterministic regtest chain, its dataset, and its ground truth. */
export { generateChain, DEFAULT_MEMPOOL_TXS } from './generate';
export type { GenerateOptions } from './generate';
export { miningAddress } from './keys';
export { readManifest, MANIFEST_FORMAT, GENERATOR_VERSION } from './manifest';
export type { LabManifest, ManifestAddress } from './manifest';
export { DEFAULT_MAX_TX_COUNT, scaleShape } from './plan';
export { walkChain } from './walk';
export type { WalkResult } from './walk';
export { ChainClient } from './chain';
export { diffTruths, historyDigest, utxoKey } from './truth';
export type { ScriptTruth, HistoryItem } from './truth';
