/**
 * What the doctor knows of a target before asking it anything: its profile's defaults, and the
 * latest findings a `limits` run stored for its URL, read from --limits-db without changing it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { limitsOf } from '../../../src/cli/server-limits';
import { ResultsStore } from '../../../src/store/results';
import { LimitStore } from '../../../src/store/limit-results';
import { UserError } from '../../../src/core/user-error';
import type { ServerTarget } from '../../../src/servers/targets';

let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-server-limits-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const fulcrum = { name: 'f', profile: 'fulcrum', host: '127.0.0.1', port: 1, tls: false } as ServerTarget;

test("a limits run's findings for the target's URL join its profile's, last (they rule); the database is left as it was", async () => {
  const file = path.join(tmp, 'limits.sqlite');
  const results = ResultsStore.open(file);
  const store = new LimitStore(results);
  const { runId, serverIds } = store.createRun({ tool_version: '1', git_commit: null, config: {}, dataset_path: null, dataset_hash: null }, [{ name: 'x', profile: 'fulcrum', url: 'tcp://127.0.0.1:1' }]);
  store.addFinding(runId, serverIds[0], { limit: 'connections-per-source', value: 5, triedUpTo: 6, past: { kind: 'reset' }, recoveryMs: 2, source: 'measured' });
  store.finishRun(runId, 'completed');
  results.close();
  const before = fs.readdirSync(tmp).map((f) => [f, fs.statSync(path.join(tmp, f)).mtimeMs]);

  const found = (await limitsOf([fulcrum], file)).get('f')!;
  const perSource = found.filter((x) => x.limit === 'connections-per-source');
  expect(perSource[0].source).toBe('configured');
  expect(perSource[perSource.length - 1]).toMatchObject({ value: 5, source: 'measured' });
  expect((await limitsOf([{ ...fulcrum, port: 2 }], file)).get('f')!.every((x) => x.source === 'configured')).toBe(true);
  expect(fs.readdirSync(tmp).map((f) => [f, fs.statSync(path.join(tmp, f)).mtimeMs])).toEqual(before);
});

test('a --limits-db that is not there is the user\'s mistake, named', async () => {
  await expect(limitsOf([fulcrum], path.join(tmp, 'none.sqlite'))).rejects.toThrow(UserError);
  await expect(limitsOf([fulcrum], path.join(tmp, 'none.sqlite'))).rejects.toThrow(/--limits-db .*none\.sqlite: no such file/);
});

test('a file that is not a results database: refused when named by --limits-db (no --db in the line); the default one said and left out', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'stray-'));
  fs.mkdirSync(path.join(dir, 'results'));
  const stray = path.join(dir, 'results', 'limits.sqlite');
  fs.writeFileSync(stray, 'not sqlite at all, but long enough to be read as a header by sqlite3 itself\n'.repeat(20));
  const bytes = fs.readFileSync(stray);
  const named = limitsOf([fulcrum], stray);
  await expect(named).rejects.toThrow(UserError);
  await expect(limitsOf([fulcrum], stray)).rejects.toThrow(new RegExp(`^--limits-db ${stray.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot be read: (?!.*--db)`));
  const cwd = process.cwd();
  const said: string[] = [];
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (said.push(String(chunk)), true));
  try {
    process.chdir(dir);
    const found = (await limitsOf([fulcrum])).get('f')!;
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((x) => x.source === 'configured')).toBe(true);
  } finally {
    process.chdir(cwd);
    write.mockRestore();
  }
  expect(said).toEqual([expect.stringMatching(/^electrum-bench: warning: the default limits database results\/limits\.sqlite cannot be read \(.+\); measured limits are left out/)]);
  expect(fs.readFileSync(stray)).toEqual(bytes);
});
