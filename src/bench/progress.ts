/**
 * The terminal view of a run: a progress bar with ETA on stderr, and the projected total time once
 * the first pass is done. It only listens to the runner's events.
 */
import { progressBar } from '../core/progress-bar';
import type { BenchRunner } from './runner';

export function attachProgress(runner: BenchRunner, stream: NodeJS.WriteStream = process.stderr): void {
  const bar = progressBar({ label: 'bench', unit: 'calls', extra: 'errors {errors}', stream, etaBuffer: 200 });
  let errors = 0;
  let startedAt = 0;
  let base = 0;
  runner.on('start', ({ total, alreadyDone }: { total: number; alreadyDone: number }) => {
    startedAt = Date.now();
    base = alreadyDone;
    bar.start(total, alreadyDone, { errors });
  });
  runner.on('sample', ({ completed, sample }: { completed: number; sample: { status: string } }) => {
    if (sample.status !== 'ok') errors++;
    bar.update(completed, { errors });
  });
  runner.once('pass-done', ({ completed, total }: { completed: number; total: number }) => {
    const elapsed = Date.now() - startedAt;
    const rate = (completed - base) / Math.max(1, elapsed);
    const remainingMs = (total - completed) / Math.max(rate, 1e-9);
    stream.write(`\nfirst pass took ${(elapsed / 1000).toFixed(1)} s; estimated total ${((elapsed + remainingMs) / 1000).toFixed(1)} s\n`);
  });
  runner.on('end', () => bar.stop());
}
