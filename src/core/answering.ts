/**
 * Whether a server answered the units a run gave it, said the same way by every run kind's summary,
 * its JSON, its stored record and the report: a server that answered none of them, or that stopped
 * answering part-way (src/core/stopped-answering.ts), makes every other figure of it meaningless,
 * so it is said first, and a run in which one answered nothing exits 3 (src/runs/exit-code.ts).
 */
import { isAnswered } from './outcomes';
import type { StoppedAnswering } from './stopped-answering';
import { stoppedAnsweringText } from './stopped-answering';

export interface Answering {
  server: string;
  /** Units the server answered (ok or an error reply), of the `of` it was given. */
  answered: number;
  of: number;
  /** When it answered none: how its units ended instead, in words. */
  silence: string | null;
  /** When it answered some and then went silent. */
  stoppedAnswering: StoppedAnswering | null;
}

const HOW: Record<string, (n: number, timeoutS: string | null) => string> = {
  timeout: (n, t) => `${n} timed out${t ? ` after ${t} s` : ''}`,
  disconnect: (n) => `${n} lost the connection before an answer`,
  dropped: (n) => `${n} dropped (no connection had room)`,
  'cut-short': (n) => `${n} cut short by the run's end`,
  'not-sent': (n) => `${n} not sent (the run stopped first)`,
};

/**
 * A server's answering from how its units ended (counts by outcome). `unit` names them ("call",
 * "request", "sync"); `timeoutMs` is said with the timeouts.
 */
export function answeringOf(
  server: string,
  byOutcome: Record<string, number>,
  o: { unit: string; timeoutMs?: number; stoppedAnswering?: StoppedAnswering | null },
): Answering {
  let answered = 0;
  let of = 0;
  for (const [outcome, n] of Object.entries(byOutcome)) {
    of += n;
    if (isAnswered(outcome)) answered += n;
  }
  return { server, answered, of, silence: answered === 0 && of > 0 ? silenceText(byOutcome, of, o.unit, o.timeoutMs) : null, stoppedAnswering: answered > 0 ? (o.stoppedAnswering ?? null) : null };
}

/** A server that took no connection when its turn came (it went down while an earlier one was loaded): given nothing, it answered nothing. */
export function unreachedAnswering(server: string, why: string): Answering {
  return { server, answered: 0, of: 0, silence: `not loaded: it took no connection when its turn came (${why}); nothing was sent`, stoppedAnswering: null };
}

function silenceText(byOutcome: Record<string, number>, of: number, unit: string, timeoutMs: number | undefined): string {
  const timeoutS = timeoutMs === undefined ? null : String(Math.round(timeoutMs) / 1000);
  const parts = Object.entries(byOutcome).filter(([, n]) => n > 0);
  if (parts.length === 1) {
    const [outcome] = parts[0];
    if (outcome === 'timeout') return `every ${unit} timed out${timeoutS ? ` after ${timeoutS} s` : ''}`;
    if (outcome === 'disconnect') return `every ${unit} lost its connection before an answer`;
  }
  return parts.map(([outcome, n]) => (HOW[outcome] ?? ((k: number) => `${k} ${outcome}`))(n, timeoutS)).join(', ') + ` of ${of}`;
}

/** "answered 0 of 30: every call timed out after 1 s", or the stopped-answering line; null when it answered throughout. */
export function answeringText(a: Answering): string | null {
  if (a.silence !== null) return a.of === 0 ? a.silence : `answered 0 of ${a.of}: ${a.silence}`;
  if (a.stoppedAnswering) return stoppedAnsweringText(a.stoppedAnswering);
  return null;
}
