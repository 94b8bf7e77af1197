/**
 * The one progress bar (cli-progress) for long stages, bench and dataset alike, on stderr so
 * stdout stays the result. Views build it from their stage's events; no stage draws itself.
 * Off a terminal (CI logs, `2> file`) it prints a plain line every 10 s instead of redrawing.
 */
import cliProgress from 'cli-progress';
import { formatDuration } from './duration';

export interface ProgressBarOptions {
  /** Printed first; views of one command pad their labels to one width so bars line up. */
  label: string;
  /** What `{value}/{total}` counts: calls, blocks, candidates. */
  unit: string;
  /** Appended after the ETA, with cli-progress `{payload}` tokens, e.g. `errors {errors}`. */
  extra?: string;
  stream?: NodeJS.WriteStream;
  /** Updates the ETA is averaged over: more for many small steps, fewer for slow big ones. */
  etaBuffer?: number;
  /**
   * The view supplies the ETA itself as the `eta_text` payload, so that it agrees with what else
   * the view prints (bench's projected total); otherwise cli-progress's moving-window ETA is shown.
   */
  ownEta?: boolean;
  /**
   * Redrawn by its view (`viewDrawer`) at moments it chooses, not on a timer of its own: a bench's bar
   * is drawn between calls, never while an answer is awaited (its drawing would be in the
   * latency). The timer still redraws a bar whose view has not for a second (a slow call).
   */
  drawnByView?: boolean;
}

/** A redraw at most this often when the view draws. */
const VIEW_DRAW_EVERY_MS = 100;

export function progressBar(opts: ProgressBarOptions): cliProgress.SingleBar {
  return new cliProgress.SingleBar(
    {
      stream: opts.stream ?? process.stderr,
      // cli-progress redraws every 1/fps s on its timer (and a drawn-by-view bar's view restarts it).
      fps: opts.drawnByView ? 1 : 10,
      format: `${opts.label} [{bar}] {percentage}% | {value}/{total} ${opts.unit} | ETA ${opts.ownEta ? '{eta_text}' : '{eta_formatted}'}${opts.extra ? ` | ${opts.extra}` : ''}`,
      etaBuffer: opts.etaBuffer ?? 50,
      // cli-progress's own format prints "2m60s" (it rounds the seconds after splitting the minutes).
      formatTime: (t: number) => formatDuration(Number(t)),
      hideCursor: false,
      noTTYOutput: true,
      notTTYSchedule: 10_000,
    },
    cliProgress.Presets.shades_classic,
  );
}

/**
 * The view's redraw of a `drawnByView` bar, at most every VIEW_DRAW_EVERY_MS: on a terminal only
 * (off one, cli-progress prints a line per redraw, on its own 10 s schedule).
 */
export function viewDrawer(bar: cliProgress.SingleBar, stream: NodeJS.WriteStream, now: () => number = Date.now): () => void {
  let drawnAt = -Infinity;
  return () => {
    if (!stream.isTTY || now() - drawnAt < VIEW_DRAW_EVERY_MS) return;
    drawnAt = now();
    bar.render();
  };
}
