/**
 * A command as its own process, where the process is the point (a SIGKILL, a signal, two shards
 * at once): node running src/cli/<command>.ts through tsx's loader, with no launcher in between,
 * so that a kill or a signal reaches the command itself.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { CommandName } from './cli';

const ROOT = path.resolve(__dirname, '..', '..');
const LOADER = pathToFileURL(path.join(path.dirname(require.resolve('tsx/package.json', { paths: [ROOT] })), 'dist', 'loader.mjs')).href;

export function spawnCommand(command: CommandName, args: string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, ['--import', LOADER, path.join(ROOT, 'src', 'cli', `${command}.ts`), ...args], options);
}

/** Its exit code (null: ended by a signal). */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}
