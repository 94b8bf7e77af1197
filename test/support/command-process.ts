/**
 * A command as its own process, where the process is the point (a SIGKILL, two shards at once):
 * node running src/cli/<command> (built by the tier's setup, or through tsx: test/support/build.ts),
 * with no launcher in between, so that a kill reaches the command itself.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { runnable } from './build';
import type { CommandName } from './cli';

export function spawnCommand(command: CommandName, args: string[], options: SpawnOptions = {}): ChildProcess {
  const { flags, module } = runnable(`src/cli/${command}.ts`);
  return spawn(process.execPath, [...flags, module, ...args], options);
}

/** Its exit code (null: ended by a signal). */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}
