/**
 * A function exported by a module, run in a worker thread of plain Node, outside jest's sandbox:
 * there every use of a global (Math, Infinity) goes through the sandbox, and a loop of millions of
 * steps takes some twenty times as long. The module comes from the tier's build, or through tsx
 * (test/support/build.ts); what it is given and returns must survive structured cloning.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { runnable } from './build';

const ROOT = path.resolve(__dirname, '..', '..');

export function inWorker<T>(file: string, name: string, ...args: unknown[]): Promise<T> {
  const { flags, module } = runnable(file);
  const tsx = flags.length ? require.resolve('tsx/cjs', { paths: [ROOT] }) : undefined;
  const code = `const { parentPort, workerData: w } = require('node:worker_threads');
if (w.tsx) require(w.tsx);
parentPort.postMessage(require(w.module)[w.name](...w.args));`;
  const worker = new Worker(code, { eval: true, workerData: { tsx, module, name, args } });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`${file} ${name}: its worker exited with ${code}`))));
  });
}
