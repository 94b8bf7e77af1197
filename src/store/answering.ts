/**
 * Whether each server of a stored run answered what it was given (src/core/answering.ts), read
 * from the run's rows: the run session says it at the end of a run, and the report says it again
 * from the database.
 */
import { answeringOf, type Answering } from '../core/answering';
import { ERROR_CATEGORIES, isAnswered } from '../core/outcomes';
import { stoppedAnswering } from '../core/stopped-answering';
import type { ResultsStore } from './results';

/**
 * Each server's answering over every call it was given (warm-up passes too: a server that never
 * answered is silent whatever the pass), and whether it went silent part-way, judged as load
 * judges it (src/core/stopped-answering.ts) on the calls' own times: the calls made after its last
 * answer came back that ended unanswered. Aggregates in SQL, so a report of a long run reads it
 * in a moment (a stop during a report waits for no long read).
 */
export function benchAnswering(store: ResultsStore, runId: number, servers: readonly string[], timeoutMs: number | undefined): Answering[] {
  const calls = store.callEnds(runId, ANSWERED_STATUSES);
  return servers.map((server) => {
    const c = calls.get(server);
    if (!c) return answeringOf(server, {}, { unit: 'call', timeoutMs });
    const of = Object.values(c.byOutcome).reduce((a, b) => a + b, 0);
    const stopped = stoppedAnswering({
      answered: c.answered,
      of,
      lastAnswerS: c.lastAnswerEndMs === null ? null : (c.lastAnswerEndMs - c.firstAtMs) / 1000,
      unansweredAfterLastAnswer: c.unansweredAfter,
      endS: (c.lastEndMs - c.firstAtMs) / 1000,
    });
    return answeringOf(server, c.byOutcome, { unit: 'call', timeoutMs, stoppedAnswering: stopped });
  });
}

/** The outcomes a call ends with when the server answered it. */
const ANSWERED_STATUSES: readonly string[] = ['ok', ...ERROR_CATEGORIES.filter(isAnswered)];
