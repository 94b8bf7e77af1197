/**
 * A run's servers, one after another (servers never share the generator): each gets the whole
 * profile, or the steps of a find-max search, or whatever a run kind does on one server (a wallet
 * load's hold, arrivals and blocks). A stop ends the run after the current server; a stop while
 * connecting is an interruption, not a failure: what was measured stands.
 */
import type { ServerTarget } from '../servers/targets';
import { LoadStopped, type LoadRunner, type ServerResult } from './runner';
import { findMaxOnServer, type FindMaxOptions, type FindMaxResult, type StepResult } from './find-max';
import { mergeTurns } from './merge-turns';
import { REQUEST_WORDS } from './iterations/request-units';
import { UnitsNotOpened } from './unit-source';

export interface InTurn<R> {
  results: R[];
  /** What ended the run early other than a stop (e.g. the database refused an interval). */
  failure?: unknown;
}

/** `runOne` on each server in turn, until the run is stopped. */
export async function inTurn<R>(runner: { readonly stopped: boolean }, servers: readonly ServerTarget[], runOne: (target: ServerTarget, index: number) => Promise<R>): Promise<InTurn<R>> {
  const done: InTurn<R> = { results: [] };
  try {
    for (const [i, target] of servers.entries()) {
      if (runner.stopped) break;
      done.results.push(await runOne(target, i));
    }
  } catch (err) {
    if (!(err instanceof LoadStopped)) done.failure = err;
  }
  return done;
}

export interface ServersDone extends InTurn<ServerResult> {
  searches: FindMaxResult[];
  /**
   * Each searched server's steps as one run (merge-turns.ts), by server: whether it answered, or
   * stopped answering, is a fact of the whole search, not of its last step (a server that died
   * after passing two steps answered, then stopped; it did not answer nothing).
   */
  searched: Map<string, ServerResult>;
  /**
   * Servers that took no connection when their turn came, after an earlier server had been
   * measured (one went down meanwhile), with why: nothing was sent to them, and the run went on.
   */
  unreached: Array<{ server: string; why: string }>;
}

/** A request load's servers: each its whole profile, or its find-max search. */
export async function serversInTurn(
  runner: LoadRunner,
  servers: readonly ServerTarget[],
  search: FindMaxOptions | undefined,
  on: { step(target: ServerTarget, s: StepResult): void; server(target: ServerTarget, r: ServerResult): void },
  /** Whether a later server that took no connection lets the run go on (not in a shard: shards must meet at each server, and their merge adds outcomes). */
  unreachedGoesOn = true,
): Promise<ServersDone> {
  const searches: FindMaxResult[] = [];
  const searched = new Map<string, ServerResult>();
  const unreached: ServersDone['unreached'] = [];
  const done = await inTurn(runner, servers, async (target, i): Promise<ServerResult | null> => {
    let r: ServerResult;
    try {
      if (search) {
        const { found, last, runs } = await findMaxOnServer(runner, target, i, search, (s) => on.step(target, s));
        searches.push(found);
        if (runs.length > 0) searched.set(target.name, mergeTurns(runs, { closed: false, words: REQUEST_WORDS }));
        r = last;
      } else {
        r = await runner.runServer(target, i);
      }
    } catch (err) {
      // Every server answered the reachability check before the run; one that takes no connection
      // when its turn comes went down meanwhile. Once an earlier server was measured, that is a
      // finding of the run, not the user's error: the earlier figures stand and the rest go on.
      if (!(err instanceof UnitsNotOpened) || !err.tookNone || i === 0 || !unreachedGoesOn) throw err;
      unreached.push({ server: target.name, why: err.message });
      return null;
    }
    on.server(target, r);
    return r;
  });
  return { ...done, results: done.results.filter((r): r is ServerResult => r !== null), searches, searched, unreached };
}
