/**
 * Reads what a dataset's manifest knows of the chain beyond the lines' counts: each address's full
 * history and the block headers. Only the lab's manifest holds them (its generator built the chain
 * and cross-checked every history against a walk of the node), so the bench's wallet calls are
 * checked against a source independent of the servers measured. Tolerant of every other manifest
 * shape: those give null, and the caller says what is missing.
 */
import fs from 'node:fs';
import type { ChainFacts, HistoryEntry, LoadedDataset } from '../core/dataset-line';
import { UserError } from '../core/user-error';
import { manifestPathOf } from './options';

export function readChainFacts(dataset: LoadedDataset): ChainFacts | null {
  const file = manifestPathOf(dataset.path);
  if (!fs.existsSync(file)) return null;
  let m: { headers?: unknown; addresses?: unknown; dataset?: { sha256?: unknown } };
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof m;
  } catch (err) {
    throw new UserError(`${file}: not a JSON manifest (${(err as Error).message})`);
  }
  if (!Array.isArray(m.headers) || !Array.isArray(m.addresses)) return null;
  if (typeof m.dataset?.sha256 === 'string' && m.dataset.sha256 !== dataset.hash) {
    throw new UserError(`${file} describes another version of ${dataset.path} (its sha256 differs): regenerate them together`);
  }
  const histories = new Map<string, HistoryEntry[]>();
  for (const a of m.addresses as Array<{ scripthash?: unknown; history?: unknown }>) {
    if (typeof a.scripthash === 'string' && Array.isArray(a.history)) histories.set(a.scripthash, a.history as HistoryEntry[]);
  }
  return { histories, headers: m.headers as string[] };
}
