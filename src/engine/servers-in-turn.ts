/**
 * A load run's servers, one after another (servers never share the generator): each gets the
 * whole profile, or the steps of a find-max search. A stop ends the run after the current server;
 * a stop while connecting is an interruption, not a failure: what was measured stands.
 */
import type { ServerTarget } from '../core/targets';
import { LoadStopped, type LoadRunner, type ServerResult } from './runner';
import { findMaxOnServer, type FindMaxOptions, type FindMaxResult, type StepResult } from './find-max';

export interface ServersDone {
  results: ServerResult[];
  searches: FindMaxResult[];
  /** What ended the run early other than a stop (e.g. the database refused an interval). */
  failure?: unknown;
}

export async function serversInTurn(
  runner: LoadRunner,
  servers: readonly ServerTarget[],
  search: FindMaxOptions | undefined,
  on: { step(target: ServerTarget, s: StepResult): void; server(target: ServerTarget, r: ServerResult): void },
): Promise<ServersDone> {
  const done: ServersDone = { results: [], searches: [] };
  try {
    for (const [i, target] of servers.entries()) {
      if (runner.stopped) break;
      let r: ServerResult;
      if (search) {
        const { found, last } = await findMaxOnServer(runner, target, i, search, (s) => on.step(target, s));
        done.searches.push(found);
        r = last;
      } else {
        r = await runner.runServer(target, i);
      }
      on.server(target, r);
      done.results.push(r);
    }
  } catch (err) {
    if (!(err instanceof LoadStopped)) done.failure = err;
  }
  return done;
}
