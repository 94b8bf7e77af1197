/**
 * `bench --cold` run by a process that is not root: refused in one line naming why, exit 2, before
 * any work (no database made, no server asked). The uid is what is tested, so the command is a
 * process of its own: as root (this project's machines), it runs as `nobody` (setpriv); otherwise
 * as the user running the tests, who is not root either way. Run through tsx from the repository,
 * which `nobody` can read (the tier's build is in a directory only its owner reads).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(__dirname, '../../..');
const LOADER = pathToFileURL(path.join(path.dirname(require.resolve('tsx/package.json', { paths: [ROOT] })), 'dist', 'loader.mjs')).href;
const NOBODY = 65534;

// Its 5 s is the corpus's (test/unit/cli/user-errors.test.ts, in process): here a loaded machine's
// start-up through tsx, as another user, would be timed with it.
test('bench --cold as a user who is not root: one line naming --cold and the uid, exit 2, nothing written', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cold-cli-'));
  fs.chmodSync(tmp, 0o777);
  try {
    const dataset = path.join(tmp, 'd.jsonl');
    fs.writeFileSync(dataset, '');
    const db = path.join(tmp, 'r.sqlite');
    const command = [process.execPath, '--import', LOADER, path.join(ROOT, 'src', 'cli', 'bench.ts'), '--cold', '--server', 'electrumx@127.0.0.1:1', '--dataset', dataset, '--db', db];
    const asRoot = process.getuid!() === 0;
    const [file, ...args] = asRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...command] : command;
    const run = spawnSync(file, args, { cwd: tmp, encoding: 'utf8', timeout: 30_000, env: { ...process.env, HOME: tmp } });
    const uid = asRoot ? NOBODY : process.getuid!();
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: `electrum-bench: --cold: dropping the OS page cache needs root, and this process runs as uid ${uid}\n`,
    });
    expect(fs.readdirSync(tmp)).toEqual(['d.jsonl']);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
