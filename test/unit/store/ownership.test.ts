/**
 * A database that is not ours is refused and left byte for byte (its directory too); reading one
 * of ours leaves no -wal/-shm behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { ResultsStore } from '../../../src/store/results';
import { refusal } from '../../support/refusal';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-ownership-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every file of the directory with the hash of its bytes. */
const snapshot = () => fs.readdirSync(dir).sort().map((f) => `${f} ${createHash('sha256').update(fs.readFileSync(path.join(dir, f))).digest('hex')}`);

function foreign(name: string, wal: boolean): string {
  const file = path.join(dir, name);
  const db = new Database(file);
  if (wal) db.pragma('journal_mode = WAL');
  db.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('alice')");
  db.close();
  return file;
}

test.each([
  ['rollback journal', false],
  ['WAL', true],
])("another program's SQLite file (%s) is refused and left byte for byte", (_, wal) => {
  const file = foreign('theirs.sqlite', wal as boolean);
  const before = snapshot();
  expect(refusal(() => ResultsStore.open(file))).toBe(`--db: ${file} is another program's database (tables: contacts); electrum-bench writes only into its own results databases`);
  expect(snapshot()).toEqual(before);
  // Read-only (report, merge inputs): refused too, and nothing appears beside it.
  expect(refusal(() => ResultsStore.open(file, { readonly: true }))).toContain(file);
  expect(snapshot()).toEqual(before);
});

test('a file that is not SQLite is refused and left as it was', () => {
  const file = path.join(dir, 'notes.sqlite');
  fs.writeFileSync(file, 'my notes\n');
  const before = snapshot();
  expect(refusal(() => ResultsStore.open(file))).toBe(`--db: ${file} is not a SQLite database; electrum-bench writes only into its own results databases`);
  expect(snapshot()).toEqual(before);
});

test('ours opens again for writing, and reading it leaves no -wal or -shm', () => {
  const file = path.join(dir, 'r.sqlite');
  ResultsStore.open(file).close();
  const empty = path.join(dir, 'empty.sqlite');
  fs.writeFileSync(empty, '');
  ResultsStore.open(empty).close(); // a zero-byte file is a new database
  ResultsStore.open(file).close();
  const before = snapshot();
  const ro = ResultsStore.open(file, { readonly: true });
  expect(ro.listRuns()).toEqual([]);
  ro.close();
  expect(snapshot()).toEqual(before);
  expect(fs.readdirSync(dir).sort()).toEqual(['empty.sqlite', 'r.sqlite']);
});
