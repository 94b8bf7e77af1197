/**
 * Whether each server of a stored run answered what it was given (src/core/answering.ts), read
 * from the run's rows: the run session says it at the end of a run, and the report says it again
 * from the database.
 */
import { answeringOf, type Answering } from '../core/answering';
import { isAnswered } from '../core/outcomes';
import { AnswerWatch, stoppedAnswering } from '../core/stopped-answering';
import type { ResultsStore } from './results';

/**
 * Each server's answering over every call it was given (warm-up passes too: a server that never
 * answered is silent whatever the pass), and whether it went silent part-way, judged as load
 * judges it (src/core/stopped-answering.ts) on the calls' own times.
 */
export function benchAnswering(store: ResultsStore, runId: number, servers: readonly string[], timeoutMs: number | undefined): Answering[] {
  const seen = new Map(servers.map((s) => [s, { byOutcome: {} as Record<string, number>, watch: new AnswerWatch(), first: Infinity, last: 0 }]));
  store.forEachCallEnd(runId, (server, status, atMs, endMs) => {
    const s = seen.get(server);
    if (!s) return;
    s.byOutcome[status] = (s.byOutcome[status] ?? 0) + 1;
    s.first = Math.min(s.first, atMs);
    s.last = Math.max(s.last, endMs);
    s.watch.note(isAnswered(status), atMs, endMs);
  });
  return servers.map((server) => {
    const s = seen.get(server)!;
    const of = Object.values(s.byOutcome).reduce((a, b) => a + b, 0);
    const t0 = Number.isFinite(s.first) ? s.first : 0;
    const stopped = stoppedAnswering({
      answered: s.watch.answered,
      of,
      lastAnswerS: s.watch.lastAnswer === null ? null : (s.watch.lastAnswer - t0) / 1000,
      unansweredAfterLastAnswer: s.watch.unansweredAfter,
      endS: (s.last - t0) / 1000,
    });
    return answeringOf(server, s.byOutcome, { unit: 'call', timeoutMs, stoppedAnswering: stopped });
  });
}

