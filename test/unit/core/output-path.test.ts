/** Output paths are claimed in a moment, fail with an errno, and leave nothing behind when unused. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claimInput, claimOutputDir, claimOutputFile, makeDirs, releaseClaims, sameFile } from '../../../src/core/output-path';
import { claimDatabase } from '../../../src/store/ownership';
import { refusal } from '../../support/refusal';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'output-path-'));
});
afterEach(() => {
  releaseClaims();
  fs.rmSync(dir, { recursive: true, force: true });
});

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
  // Each claim below is another command's.
  releaseClaims();
  expect(refusal(() => claimOutputDir(dir, '--out', { files: ['index.html', 'summary.md'] }))).toBe(`--out: ${dir} already holds index.html (pass --force to replace them)`);
  expect(claimOutputDir(dir, '--out', { files: ['index.html'], force: true })).toBe(dir);
  releaseClaims();
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

describe('no two outputs are one file, and no output is an input', () => {
  test('two options naming one new file, however spelled, are refused before anything is made', () => {
    claimDatabase(path.join(dir, 'results', 'a.sqlite'));
    const again = path.join(dir, 'results', '..', 'results', 'a.sqlite');
    expect(refusal(() => claimOutputFile(again, '--summary-export'))).toBe(`--summary-export ${again} and --db ${path.join(dir, 'results', 'a.sqlite')} are the same file: give each output a file of its own`);
    // A database's WAL is the database's too.
    expect(refusal(() => claimOutputFile(path.join(dir, 'results', 'a.sqlite-wal'), '--out json'))).toContain('are the same file');
    expect(claimOutputFile(path.join(dir, 'results', 'b.json'), '--out json')).toBe(path.join(dir, 'results', 'b.json'));
  });

  test('an existing file reached through a hard link or a symlinked directory is the same file', () => {
    const real = path.join(dir, 'real');
    fs.mkdirSync(real);
    fs.writeFileSync(path.join(real, 'x.sqlite'), '');
    fs.linkSync(path.join(real, 'x.sqlite'), path.join(dir, 'hard.sqlite'));
    fs.symlinkSync(real, path.join(dir, 'via'));
    claimOutputFile(path.join(real, 'x.sqlite'), '--db');
    expect(refusal(() => claimOutputFile(path.join(dir, 'hard.sqlite'), '--summary-export'))).toContain('are the same file');
    expect(refusal(() => claimOutputFile(path.join(dir, 'via', 'x.sqlite'), '--dashboard-export'))).toContain('are the same file');
    // A new file in a symlinked directory too.
    claimOutputFile(path.join(real, 'new.json'), '--out json');
    expect(refusal(() => claimOutputFile(path.join(dir, 'via', 'new.json'), '--summary-export'))).toContain('are the same file');
  });

  test('an output over an input is refused, whichever was named first', () => {
    const dataset = path.join(dir, 'd.jsonl');
    fs.writeFileSync(dataset, '{}\n');
    claimInput(dataset, '--dataset');
    expect(refusal(() => claimOutputFile(dataset, '--out json'))).toBe(`--out json ${dataset} is the --dataset file ${dataset}: an output must not overwrite an input; write it elsewhere`);
    const wallets = path.join(dir, 'w.jsonl');
    fs.writeFileSync(wallets, '{}\n');
    claimOutputFile(wallets, '--summary-export');
    expect(refusal(() => claimInput(wallets, '--wallets'))).toBe(`--summary-export ${wallets} is the --wallets file ${wallets}: an output must not overwrite an input; write it elsewhere`);
    expect(fs.readFileSync(dataset, 'utf8')).toBe('{}\n');
  });

  test("a report's files are outputs too; a released claim frees its file for the next command", () => {
    const report = path.join(dir, 'rep');
    claimOutputDir(report, '--out', { files: ['index.html'] });
    expect(refusal(() => claimOutputFile(path.join(report, 'index.html'), '--summary-export'))).toContain('are the same file');
    releaseClaims();
    expect(claimOutputFile(path.join(report, 'index.html'), '--summary-export')).toBe(path.join(report, 'index.html'));
    expect(sameFile(path.join(report, 'index.html'), path.join(report, '.', 'index.html'))).toBe(true);
    expect(sameFile(path.join(report, 'index.html'), path.join(report, 'other.html'))).toBe(false);
  });
});
