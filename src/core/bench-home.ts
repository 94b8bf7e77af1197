/** Where electrum-bench keeps what outlives a command: the lab's installs, a bug's details. */
import os from 'node:os';
import path from 'node:path';

/** $ELECTRUM_BENCH_HOME, or ~/.cache/electrum-bench. */
export function benchHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.ELECTRUM_BENCH_HOME || path.join(os.homedir(), '.cache', 'electrum-bench');
}
