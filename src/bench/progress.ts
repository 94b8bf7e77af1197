/**
 * The terminal view of a run: a progress bar with ETA on stderr, and the projected total time once
 * the first pass is done. Both come from one estimate (src/core/duration.ts), so the bar's ETA and
 * the projected total agree. It only listens to the runner's events.
 */
import type { EventEmitter } from 'node:events';
import { formatDuration, RemainingTime } from '../core/duration';
import { progressBar, viewDrawer } from '../core/progress-bar';

export function attachProgress(runner: EventEmitter, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): void {
  // Drawn here, between calls (a sample has just ended one), not while an answer is awaited.
  const bar = progressBar({ label: 'bench', unit: 'calls', extra: 'errors {errors}', stream, ownEta: true, drawnByView: true });
  const draw = viewDrawer(bar, stream, now);
  let errors = 0;
  let startedAt = 0;
  let estimate = new RemainingTime(0, 0);
  let total = 0;
  const etaText = (completed: number) => {
    const left = estimate.remainingMs(completed, total, now());
    return left === null ? '-' : formatDuration(left / 1000);
  };
  runner.on('start', (e: { total: number; alreadyDone: number }) => {
    startedAt = now();
    total = e.total;
    estimate = new RemainingTime(startedAt, e.alreadyDone);
    bar.start(total, e.alreadyDone, { errors, eta_text: etaText(e.alreadyDone) });
  });
  runner.on('sample', ({ completed, sample }: { completed: number; sample: { status: string } }) => {
    if (sample.status !== 'ok') errors++;
    bar.update(completed, { errors, eta_text: etaText(completed) });
    draw();
  });
  runner.once('pass-done', ({ completed }: { completed: number }) => {
    const at = now();
    const elapsed = at - startedAt;
    const left = estimate.remainingMs(completed, total, at) ?? 0;
    bar.update(completed, { errors, eta_text: formatDuration(left / 1000) });
    stream.write(
      `\nfirst pass took ${formatDuration(elapsed / 1000)} (${(elapsed / 1000).toFixed(1)} s); ` +
        `estimated total ${formatDuration((elapsed + left) / 1000)} (${((elapsed + left) / 1000).toFixed(1)} s), ETA ${formatDuration(left / 1000)}\n`,
    );
  });
  runner.on('end', () => bar.stop());
}
