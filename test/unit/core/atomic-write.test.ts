/** Files appear whole or not at all, and nothing temporary is left behind. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AtomicWriteError, discardStagedFiles, stageFile, writeFileAtomic } from '../../../src/core/atomic-write';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atomic-write-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('writes a new file and replaces an old one, leaving no temporary file', () => {
  const file = path.join(dir, 'a.json');
  writeFileAtomic(file, 'one');
  writeFileAtomic(file, Buffer.from('two'));
  expect(fs.readFileSync(file, 'utf8')).toBe('two');
  expect(fs.readdirSync(dir)).toEqual(['a.json']);
});

test('a staged file is invisible under its name until committed', () => {
  const file = path.join(dir, 'd.jsonl');
  fs.writeFileSync(file, 'old');
  const staged = stageFile(file, 'new');
  expect(path.dirname(staged.temporary)).toBe(dir); // same filesystem, so the rename is atomic
  expect(fs.readFileSync(file, 'utf8')).toBe('old');
  staged.commit();
  expect(fs.readFileSync(file, 'utf8')).toBe('new');
  expect(fs.readdirSync(dir)).toEqual(['d.jsonl']);
});

test('discarding staged files (an interrupt) keeps the old file and removes the temporary', () => {
  const file = path.join(dir, 'd.jsonl');
  fs.writeFileSync(file, 'old');
  stageFile(file, 'new');
  stageFile(path.join(dir, 'other'), 'x');
  discardStagedFiles();
  expect(fs.readdirSync(dir)).toEqual(['d.jsonl']);
  expect(fs.readFileSync(file, 'utf8')).toBe('old');
});

test('a directory that does not exist: an error naming the file, unless asked to create it', () => {
  const file = path.join(dir, 'new', 'deeper', 'f.txt');
  expect(() => writeFileAtomic(file, 'x')).toThrow(AtomicWriteError);
  expect(() => writeFileAtomic(file, 'x')).toThrow(`cannot write ${file}: ENOENT`);
  writeFileAtomic(file, 'x', { mkdir: true });
  expect(fs.readFileSync(file, 'utf8')).toBe('x');
});

test('a failed rename removes the temporary file', () => {
  const target = path.join(dir, 'is-a-dir');
  fs.mkdirSync(path.join(target, 'child'), { recursive: true });
  expect(() => writeFileAtomic(target, 'x')).toThrow(AtomicWriteError);
  expect(fs.readdirSync(dir)).toEqual(['is-a-dir']);
});

test('mode is applied to the new file', () => {
  const file = path.join(dir, 'secret');
  writeFileAtomic(file, 'x', { mode: 0o600 });
  if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
});
