/**
 * An interleaved run (`load --interleave DURATION`): the servers take turns of DURATION under the
 * run's model, so the machine's drift over the run reaches all of them alike, and each still gets
 * the whole model in total (servers never share the generator: one is loaded at a time). A round
 * is one turn per server; every other round goes in reverse order (A B, B A, A B, …), so that in
 * the rounds taken together each server comes first as often as second: a steady drift, or
 * whatever the second turn of a round inherits from the first (a warmed cache, a busy disk), then
 * favours neither. The turns of one round are the pairs an A/B verdict compares
 * (src/verdicts/load.ts); their seconds carry the round as their `step`.
 *
 * Every server draws the same request sequence, continued from turn to turn: in a round, A and B
 * are asked the same requests at the same moments of their turns. A round's turns are the round's
 * window of the run's schedule (Executor.window): Poisson arrivals go on through the run rather
 * than repeat its first turn. Each server's
 * connections stay open from its first turn to its last (kept-open.ts), and its turns are merged
 * into one result (merge-turns.ts).
 */
import type { ServerTarget } from '../servers/targets';
import { LoadStopped, type LoadRunner, type ServerResult } from './runner';
import type { InTurn } from './servers-in-turn';
import { keptOpen } from './kept-open';
import { mergeTurns } from './merge-turns';

export interface Turn {
  /** The server's place among the run's servers. */
  server: number;
  /** The round: the turns of one round are paired. */
  round: number;
  durationMs: number;
}

/**
 * Rounds of one turn per server, in the given order and then reversed, by turns; each server's
 * turns add up to `totalMs` (the last round's turns are shorter when `turnMs` does not divide it).
 */
export function turnSchedule(servers: number, totalMs: number, turnMs: number): Turn[] {
  const turns: Turn[] = [];
  const order = Array.from({ length: servers }, (_, i) => i);
  for (let round = 0, doneMs = 0; doneMs < totalMs; round++, doneMs += turnMs) {
    const durationMs = Math.min(turnMs, totalMs - doneMs);
    for (const server of round % 2 === 0 ? order : [...order].reverse()) turns.push({ server, round, durationMs });
  }
  return turns;
}

export interface InterleavedDone extends InTurn<ServerResult> {
  /** Each server's turns, in order, as they ran (the results are these merged). */
  turns: ServerResult[][];
}

/**
 * The run's servers in turns of `turnMs` for `totalMs` each (the model's length). A stop ends the
 * run after the turn under way; a server then has what its finished turns measured, and is
 * interrupted if it had turns still to come.
 */
export async function serversInTurns(
  runner: LoadRunner,
  servers: readonly ServerTarget[],
  schedule: { totalMs: number; turnMs: number },
  on: { server(target: ServerTarget, r: ServerResult): void },
): Promise<InterleavedDone> {
  const plan = turnSchedule(servers.length, schedule.totalMs, schedule.turnMs);
  // One request sequence for all: the same serverIndex.
  const units = servers.map((t) => keptOpen(runner.unitsFor(t, 0), () => runner.stopped));
  const turns: ServerResult[][] = servers.map(() => []);
  const nextIndex = servers.map(() => 0);
  const done: InterleavedDone = { results: [], turns };
  try {
    for (const turn of plan) {
      if (runner.stopped) break;
      const i = turn.server;
      const r = await runner.runServer(servers[i], i, { units: () => units[i], durationMs: turn.durationMs, indexBase: nextIndex[i], step: turn.round, window: turn.round });
      nextIndex[i] += r.intervals;
      turns[i].push(r);
    }
  } catch (err) {
    if (!(err instanceof LoadStopped)) done.failure = err;
  } finally {
    for (const u of units) u.end();
  }
  servers.forEach((target, i) => {
    if (turns[i].length === 0) return;
    const merged = mergeTurns(turns[i], { closed: runner.closed, words: units[i].words });
    const planned = plan.filter((t) => t.server === i).length;
    if (turns[i].length < planned && merged.status === 'completed') merged.status = 'interrupted';
    done.results.push(merged);
    on.server(target, merged);
  });
  return done;
}
