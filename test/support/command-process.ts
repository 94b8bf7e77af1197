/**
 * A command as its own process, where the process is the point (a SIGKILL, two shards at once):
 * node running src/cli/<command> (built by the tier's setup, or through tsx: test/support/build.ts)
 * with the launchers' node options, and no launcher in between, so that a kill reaches the command itself.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { runnable } from './build';
import type { CommandName } from './cli';
import { engineNodeFlags } from './engine-node-flags';

export function spawnCommand(command: CommandName, args: string[], options: SpawnOptions = {}): ChildProcess {
  const { flags, module } = runnable(`src/cli/${command}.ts`);
  return spawn(process.execPath, [...engineNodeFlags(command), ...flags, module, ...args], options);
}

/**
 * A process's end, its output collected: as spawnSync gives it, without blocking this process's
 * event loop meanwhile, so that its timers and sockets (its HTTP pool's included) are serviced
 * while a command runs for minutes. Killed at `timeoutMs`.
 */
export function finished(child: ChildProcess, timeoutMs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

/** Its exit code (null: ended by a signal). */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}
