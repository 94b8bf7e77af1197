/**
 * Whether this process may drop the OS page cache (`bench --cold`), each reason it may not in
 * words. Dropping it is not exercised here: it empties the whole machine's cache, so only
 * `bench --cold` does it, when asked (test/cold.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DROP_CACHES, pageCacheDropProblem } from '../../../src/resources/page-cache';

describe('page cache drop', () => {
  test('not root: refused, naming the uid', () => {
    expect(pageCacheDropProblem({ uid: 1000, path: DROP_CACHES })).toBe('dropping the OS page cache needs root, and this process runs as uid 1000');
  });

  test('root, but the file is not writable: refused, naming the file and why', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-drop-'));
    try {
      // A path that cannot be written whoever asks: a file under a path component that is a file.
      const notADir = path.join(tmp, 'file');
      fs.writeFileSync(notADir, '');
      const target = path.join(notADir, 'drop_caches');
      expect(pageCacheDropProblem({ uid: 0, path: target })).toBe(`${target} is not writable here (ENOTDIR)`);
      expect(pageCacheDropProblem({ uid: 0, path: path.join(tmp, 'missing', 'drop_caches') })).toMatch(/is not writable here \(ENOENT\)$/);
      // Root and a writable file: nothing stops it.
      expect(pageCacheDropProblem({ uid: 0, path: notADir })).toBeNull();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("this process's own answer agrees with who it is", () => {
    const problem = pageCacheDropProblem();
    if (process.getuid!() !== 0) expect(problem).toMatch(/needs root/);
    else {
      // A second way of asking: opening the file for writing (writing nothing drops nothing).
      let opens = true;
      try {
        fs.closeSync(fs.openSync(DROP_CACHES, 'w'));
      } catch {
        opens = false;
      }
      if (opens) expect(problem).toBeNull();
      else expect(problem).toMatch(new RegExp(`^${DROP_CACHES} is not writable here`));
    }
  });
});
