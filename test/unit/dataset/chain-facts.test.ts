/** Reading a manifest's chain facts: the lab's shape gives them, another shape gives null, a stale one is refused. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readChainFacts } from '../../../src/dataset/chain-facts';
import type { LoadedDataset } from '../../../src/core/dataset-line';
import { UserError } from '../../../src/core/user-error';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-chain-facts-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function datasetWith(name: string, manifest: unknown): LoadedDataset {
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, '');
  if (manifest !== undefined) fs.writeFileSync(path.join(dir, `${name}.manifest.json`), JSON.stringify(manifest));
  return { path: file, id: name, hash: 'f'.repeat(64), lines: [] };
}

const history = [{ tx_hash: 'ab'.repeat(32), height: 3 }];

test("the lab manifest's histories and headers, by scripthash and height", () => {
  const facts = readChainFacts(datasetWith('lab', { dataset: { sha256: 'f'.repeat(64) }, headers: ['00'.repeat(80)], addresses: [{ scripthash: 'a', history }, { scripthash: 'b' }] }));
  expect(facts).toEqual({ headers: ['00'.repeat(80)], histories: new Map([['a', history]]) });
});

test('no manifest, or one without headers (a built dataset), gives null', () => {
  expect(readChainFacts(datasetWith('none', undefined))).toBeNull();
  expect(readChainFacts(datasetWith('built', { kind: 'electrum-bench-dataset', lines: 0 }))).toBeNull();
});

test('a manifest of another version of the dataset is refused, naming it', () => {
  const stale = datasetWith('stale', { dataset: { sha256: '0'.repeat(64) }, headers: [], addresses: [] });
  expect(() => readChainFacts(stale)).toThrow(UserError);
  expect(() => readChainFacts(stale)).toThrow(/stale\.manifest\.json describes another version/);
});
