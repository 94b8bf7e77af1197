/**
 * The two ways a command is started, `npm run <command>` and bin/electrum-bench.js, give node the
 * same options: those of bin/engine-node-flags.json for the commands that run the engine, none for
 * the others.
 */
import fs from 'node:fs';
import path from 'node:path';
import ENGINE from '../../../bin/engine-node-flags.json';
import { COMMAND_NAMES } from '../../support/cli';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const { nodeArgs } = require(path.join(ROOT, 'bin', 'electrum-bench.js')) as { nodeArgs: (command: string, rest: string[], root: string, loader: string) => string[] };

/** The options an npm script gives node before the command's module. */
function scriptNodeFlags(command: string): string[] {
  const words = scripts[command].split(/\s+/);
  const module = words.indexOf(`src/cli/${command}.ts`);
  const node = words.indexOf('node');
  expect(module).toBeGreaterThan(node);
  expect(node).toBeGreaterThanOrEqual(0);
  return words.slice(node + 1, module).filter((w, i, all) => w !== '--import' && all[i - 1] !== '--import');
}

test('the engine commands are commands, and the flags are node options', () => {
  for (const c of ENGINE.commands) expect(COMMAND_NAMES).toContain(c);
  expect(ENGINE.flags.length).toBeGreaterThan(0);
  for (const f of ENGINE.flags) expect(f).toMatch(/^--[a-z-]+(=\S+)?$/);
});

test.each(COMMAND_NAMES)('%s: the npm script and the launcher give node the same options', (command) => {
  const expected = ENGINE.commands.includes(command) ? ENGINE.flags : [];
  expect(scriptNodeFlags(command)).toEqual(expected);
  const args = nodeArgs(command, ['--help'], '/repo', 'file:///loader.mjs');
  expect(args).toEqual([...expected, '--import', 'file:///loader.mjs', path.join('/repo', 'src', 'cli', `${command}.ts`), '--help']);
});
