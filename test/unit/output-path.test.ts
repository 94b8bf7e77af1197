/** Output paths are claimed in a moment, fail with an errno, and leave nothing behind when unused. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claimOutputDir, claimOutputFile, makeDirs, releaseClaims } from '../../src/core/output-path';
import { refusal } from '../support/refusal';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'output-path-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

// Node's own recursive mkdir spins forever here; ours must answer at once.
test('a directory under /proc cannot be made: ENOENT at once, not a hang', () => {
  const started = Date.now();
  expect(() => makeDirs('/proc/electrum-bench-nodir/deeper')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  expect(refusal(() => claimOutputFile('/proc/electrum-bench-nodir/x.sqlite', '--db'))).toBe('--db: cannot create directory /proc/electrum-bench-nodir: ENOENT');
  expect(refusal(() => claimOutputDir('/proc/electrum-bench-rep', '--out', { files: [] }))).toContain('--out: cannot create directory /proc/electrum-bench-rep');
  expect(Date.now() - started).toBeLessThan(1000);
});

test('makeDirs makes each missing level and says which; a file in the way is ENOTDIR', () => {
  expect(makeDirs(path.join(dir, 'a', 'b'))).toEqual([path.join(dir, 'a'), path.join(dir, 'a', 'b')]);
  expect(makeDirs(path.join(dir, 'a', 'b'))).toEqual([]);
  fs.writeFileSync(path.join(dir, 'f'), 'x');
  expect(() => makeDirs(path.join(dir, 'f', 'g'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
});

test('an empty name, a directory, or an existing file not to be replaced is refused naming the option', () => {
  expect(refusal(() => claimOutputFile('', '--db'))).toBe('--db needs a file name, got ""');
  expect(refusal(() => claimOutputFile(dir, '--db'))).toBe(`--db: ${dir} is a directory, not a file`);
  const file = path.join(dir, 'd.jsonl');
  fs.writeFileSync(file, 'mine');
  expect(refusal(() => claimOutputFile(file, '--out', { replace: false }))).toContain(`--out: ${file} already exists`);
  expect(claimOutputFile(file, '--out', { replace: false, force: true })).toBe(file);
  expect(fs.readFileSync(file, 'utf8')).toBe('mine');
});

test('an output directory already holding a file to be written needs --force; other files are left be', () => {
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
  expect(claimOutputDir(dir, '--out', { files: ['index.html', 'summary.md'] })).toBe(dir);
  fs.writeFileSync(path.join(dir, 'index.html'), 'old report');
  expect(refusal(() => claimOutputDir(dir, '--out', { files: ['index.html', 'summary.md'] }))).toBe(`--out: ${dir} already holds index.html (pass --force to replace them)`);
  expect(claimOutputDir(dir, '--out', { files: ['index.html'], force: true })).toBe(dir);
  expect(claimOutputDir(path.join(dir, 'empty'), '--out', { files: ['index.html'] })).toBe(path.join(dir, 'empty'));
  releaseClaims();
});

test('release removes what a claim made and nothing filled, and keeps what was written', () => {
  const unused = path.join(dir, 'new', 'deeper', 'r.sqlite');
  claimOutputFile(unused, '--db');
  expect(fs.existsSync(path.dirname(unused))).toBe(true);
  expect(fs.existsSync(unused)).toBe(false); // the probe is gone
  const used = path.join(dir, 'kept', 's.json');
  claimOutputFile(used, '--summary-export');
  fs.writeFileSync(used, '{}');
  const emptyDir = path.join(dir, 'rep');
  claimOutputDir(emptyDir, '--out', { files: ['index.html'] });
  releaseClaims();
  expect(fs.readdirSync(dir).sort()).toEqual(['kept']);
  expect(fs.readFileSync(used, 'utf8')).toBe('{}');
});
