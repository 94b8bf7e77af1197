/**
 * The terminal view of a build: a bar with ETA per phase on stderr, and one summary line when a
 * phase ends. It only listens to the build's events.
 */
import type { SingleBar } from 'cli-progress';
import { progressBar, type ProgressBarOptions } from '../core/progress-bar';
import type { BuildEvents, Phase, PhaseTick } from './events';

const BARS: Record<Phase, Omit<ProgressBarOptions, 'stream'>> = {
  scan: { label: 'scan ', unit: 'blocks', extra: '{candidates} candidates' },
  count: { label: 'count', unit: 'candidates', extra: '{kept} kept' },
};

/** Returns a function that takes a bar still drawn off the screen (a failed build). */
export function attachProgress(events: BuildEvents, opts: { bars: boolean; stream?: NodeJS.WriteStream }): () => void {
  const stream = opts.stream ?? process.stderr;
  let bar: SingleBar | undefined;
  let startDone = 0;

  events.on('start', (t: PhaseTick) => {
    startDone = t.done;
    if (!opts.bars) return;
    bar = progressBar({ ...BARS[t.phase], stream, etaBuffer: 50 });
    bar.start(t.total, t.done, t.info);
  });
  events.on('progress', (t: PhaseTick) => bar?.update(t.done, t.info));
  events.on('end', (t) => {
    bar?.update(t.done, t.info);
    bar?.stop();
    bar = undefined;
    const seconds = t.elapsedMs / 1000;
    const rate = (t.done - startDone) / Math.max(seconds, 1e-3);
    const unit = BARS[t.phase].unit;
    const extra = Object.entries(t.info)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    stream.write(`${t.phase}: ${t.done}/${t.total} ${unit} in ${seconds.toFixed(1)} s (${rate.toFixed(0)} ${unit}/s)${extra ? `, ${extra}` : ''}\n`);
  });
  events.on('note', (text: string) => stream.write(`${text}\n`));
  return () => {
    bar?.stop();
    bar = undefined;
  };
}
