/**
 * The manifest beside every dataset (NAME.manifest.json): where the lines came from and what
 * they were filtered by, so a dataset can be rebuilt, compared, or trusted by its content hash.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/user-error';
import type { NetworkName } from '../electrum/scripthash';
import type { DatasetLine } from './line';
import type { Selection } from './options';
import { BucketScheme, histogram } from './buckets';

export const MANIFEST_KIND = 'electrum-bench-dataset';
export const MANIFEST_VERSION = 1;

export interface ManifestSource {
  node: string | null; // URL without credentials
  countVia: string | null;
  countServer: string | null; // server.version software string
}

export interface DatasetManifest {
  kind: typeof MANIFEST_KIND;
  formatVersion: number;
  dataset: string; // file name, beside this manifest
  lines: number;
  contentHash: string; // sha256 (hex) of the dataset file's bytes
  createdAt: string;
  tool: { name: string; version: string };
  source: ManifestSource;
  network: NetworkName | null;
  range: { from: number; to: number } | null;
  tip: { height: number; hash: string } | null;
  filters: Selection;
  buckets: { scheme: BucketScheme; counts: Record<string, number> };
  types: Record<string, number>;
  /** What the build saw before filtering; absent for a derived dataset. */
  candidates?: { scanned: number; counted: number; inRange: number; historyTooLarge: number };
  parent: { dataset: string; contentHash: string; manifest: string | null } | null;
  notes?: string[];
}

/** The fields a caller decides; the rest follows from the lines. */
export type ManifestInput = Omit<DatasetManifest, 'kind' | 'formatVersion' | 'dataset' | 'lines' | 'contentHash' | 'createdAt' | 'tool' | 'buckets' | 'types'>;

export function makeManifest(datasetFile: string, lines: readonly DatasetLine[], contentHash: string, input: ManifestInput): DatasetManifest {
  const counts: Record<string, number> = {};
  for (const { bucket, count } of histogram(lines.map((l) => l.txCount), input.filters.buckets)) counts[bucket.label] = count;
  const types: Record<string, number> = {};
  for (const l of lines) types[l.type] = (types[l.type] ?? 0) + 1;
  return {
    kind: MANIFEST_KIND,
    formatVersion: MANIFEST_VERSION,
    dataset: path.basename(datasetFile),
    lines: lines.length,
    contentHash,
    createdAt: new Date().toISOString(),
    tool: { name: 'electrum-bench', version: toolVersion() },
    buckets: { scheme: input.filters.buckets, counts },
    types,
    ...input,
  };
}

/**
 * What a derived dataset can inherit from its parent's manifest. Tolerant on purpose: the parent
 * may be a hand-made or lab-generated dataset whose manifest has a different shape, or none.
 */
export function readParentFacts(manifestFile: string): Pick<DatasetManifest, 'source' | 'network' | 'range' | 'tip'> | null {
  if (!fs.existsSync(manifestFile)) return null;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new UserError(`${manifestFile}: not a JSON manifest (${(err as Error).message})`);
  }
  const tip = m.tip as { height?: unknown; hash?: unknown } | undefined;
  const range = m.range as { from?: unknown; to?: unknown } | undefined;
  const source = m.source as Partial<ManifestSource> | undefined;
  const tipHeight = typeof tip?.height === 'number' ? tip.height : typeof m.tipHeight === 'number' ? m.tipHeight : null;
  const tipHash = typeof tip?.hash === 'string' ? tip.hash : typeof m.tipHash === 'string' ? m.tipHash : '';
  return {
    source: {
      node: typeof source?.node === 'string' ? source.node : null,
      countVia: typeof source?.countVia === 'string' ? source.countVia : null,
      countServer: typeof source?.countServer === 'string' ? source.countServer : null,
    },
    network: typeof m.network === 'string' ? (m.network as NetworkName) : null,
    range: typeof range?.from === 'number' && typeof range?.to === 'number' ? { from: range.from, to: range.to } : null,
    tip: tipHeight !== null ? { height: tipHeight, hash: tipHash } : null,
  };
}

let version: string | undefined;

function toolVersion(): string {
  version ??= (JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
