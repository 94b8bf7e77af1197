/**
 * A listener whose accept backlog is full and never drains: a process that listens with a backlog
 * of one and then blocks its only thread, so the kernel completes a connection or two and drops
 * every later SYN. A connect to it waits (the client resends its SYN for about two minutes), as
 * one to a server too busy to accept does.
 */
import { spawn } from 'node:child_process';

export async function startFullBacklog(): Promise<{ port: number; close(): void }> {
  // Atomics.wait blocks the thread without spinning: the event loop, and so accept(), never runs.
  // A minute at most, then it exits: a test killed before its close() leaves nothing behind for long.
  const code = `const s = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
    process.stdout.write(s.address().port + '\\n', () => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
      process.exit(0);
    });
  });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (c) => reject(new Error(`full-backlog listener exited with ${c}`)));
  });
  return { port, close: () => child.kill('SIGKILL') };
}
