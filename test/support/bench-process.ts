/**
 * The bench command run in a process of its own, with the launchers' node options, so that its peak
 * memory is the bench's alone (not jest's, nor that of a test server in jest's process) and as users
 * see it, and how its calls ended.
 */
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { engineNodeFlags } from './engine-node-flags';

const CLI = path.resolve(__dirname, '..', '..', 'src', 'cli');

/** The command's exit code and the process's peak RSS. */
export async function benchInItsOwnProcess(argv: string[]): Promise<{ code: number; maxRssBytes: number }> {
  const code = `require(${JSON.stringify(path.join(CLI, 'run-cli'))})
    .runCommand(require(${JSON.stringify(path.join(CLI, 'bench'))}).main, ${JSON.stringify(argv)})
    .then((code) => { console.log(JSON.stringify({ code, maxRssBytes: process.resourceUsage().maxRSS * 1024 })); process.exit(); });`;
  const child = spawn(process.execPath, [...engineNodeFlags('bench'), '--import', 'tsx', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** How each call of the run in `db` ended: its status and error message. */
export function outcomesIn(db: string): Array<{ status: string; error: string | null }> {
  const c = new Database(db, { readonly: true });
  try {
    return c.prepare('SELECT status, error FROM samples').all() as Array<{ status: string; error: string | null }>;
  } finally {
    c.close();
  }
}
