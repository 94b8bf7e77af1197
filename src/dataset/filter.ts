/**
 * `dataset filter`: a subset of an existing dataset (tx-count range, types, per-bucket sample),
 * with a manifest that names its parent by path and content hash and keeps the parent's origin.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/user-error';
import type { FilterOptions } from './options';
import { createOutputDir, prepareOutput } from './options';
import { readDataset } from './line';
import { readParentFacts, DatasetManifest } from './manifest';
import { select } from './stratify';
import { writeDataset } from './output';

export function filterDataset(opts: FilterOptions): DatasetManifest {
  prepareOutput(opts.out, opts.force);
  const parent = readDataset(opts.input, '--in');
  const facts = readParentFacts(opts.inputManifest);
  const lines = select(parent.lines, opts.selection);
  if (lines.length === 0) throw new UserError(`no line of ${opts.input} matches the filters: nothing written`);
  // Paths relative to the new manifest's directory, so the pair can be moved together.
  const here = path.dirname(path.resolve(opts.out.manifest));
  createOutputDir(opts.out);
  return writeDataset(opts.out, lines, {
    source: facts?.source ?? { node: null, countVia: null, countServer: null },
    network: facts?.network ?? null,
    range: facts?.range ?? null,
    tip: facts?.tip ?? null,
    filters: opts.selection,
    parent: {
      dataset: path.relative(here, path.resolve(opts.input)),
      contentHash: parent.hash,
      manifest: fs.existsSync(opts.inputManifest) ? path.relative(here, path.resolve(opts.inputManifest)) : null,
    },
  });
}
