/**
 * The longest wait a Node timer holds, and durations typed by the user checked against it: beyond
 * 2^31-1 ms Node fires a timer after 1 ms, so a huge duration would silently become none at all.
 */
import { UserError } from './user-error';
import { parseDurationMs } from './duration';

/** The longest wait a Node timer holds (2^31-1 ms, about 24.8 days); beyond, it fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const MAX_TIMER_TEXT = `${Math.floor(MAX_TIMER_MS / 1000)} seconds (about 24 days)`;

/** A duration `typed` as text and parsed to milliseconds, within what a timer can hold. */
export function withinTimer(flag: string, typed: string, ms: number): number {
  if (ms > MAX_TIMER_MS) throw new UserError(`${flag} ${typed} is longer than a timer can wait: at most ${MAX_TIMER_TEXT}`);
  return ms;
}

/** `--OPTION`'s duration as typed (k6's syntax: 30s, 5m, 1h30m), in ms, within what a timer can hold. */
export function durationOption(option: string, typed: string): number {
  return withinTimer(`--${option}`, typed, parseDurationMs(typed, `--${option}`));
}
