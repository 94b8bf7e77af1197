/**
 * Index builds (`index-bench`): what is particular to them around the builds themselves
 * (src/indexing/index-bench.ts): the record names the chain built on, a stop ends the run after
 * the build under way, each server goes back to its own settings at the tip whatever happened,
 * and the builds' medians are the outcome. The session does the rest.
 */
import { toolInfo } from '../../core/tool-info';
import { summarizeBuilds, type IndexSummary } from '../../core/index-builds';
import { IndexStore } from '../../store/index-results';
import { runIndexBench, type IndexedServer, type Restart } from '../../indexing/index-bench';
import { RunSession } from '../session';
import type { RunOutcome } from '../outcome';

export interface IndexBenchRun {
  servers: IndexedServer[];
  repeat: number;
  sweep?: { name: string; values: string[] };
  sampleEveryMs: number;
  /** The chain the servers index: its tip and the lab's seed. */
  chain: { tipHeight: number | null; seed: string | null };
  /** Starts a server on an empty data directory with these settings (the lab's, given by the command). */
  restart: Restart;
  /** Puts a server back as the lab runs it, at the tip. */
  restore: (server: string) => Promise<unknown>;
  log: (line: string) => void;
}

export interface IndexBenchDetail {
  summaries: IndexSummary[];
  tipHeight: number | null;
  sweep: { name: string; values: string[] } | null;
}

/**
 * `db` is claimed first; `prepared` then finds the lab's servers ready to be rebuilt (a user's
 * error there changes nothing).
 */
export async function indexBenchSession(db: string, prepared: () => Promise<IndexBenchRun>): Promise<{ outcome: RunOutcome<IndexBenchDetail>; code: number }> {
  return RunSession.run({ db, watch: { outputs: [], dashboard: undefined }, title: 'index-bench' }, async (session) => measure(session, db, await prepared()));
}

async function measure(session: RunSession, db: string, run: IndexBenchRun): Promise<RunOutcome<IndexBenchDetail>> {
  const store = new IndexStore(session.openStore());
  const tool = toolInfo();
  const { runId } = session.record(() => ({
    runId: store.createRun({ tool_version: tool.version, git_commit: tool.gitCommit, chain: run.chain, config: { servers: run.servers.map((s) => s.name), repeat: run.repeat, sweep: run.sweep ?? null } }),
  }));
  session.onStop(() => run.log('stopping after the build in progress'));
  let builds: Awaited<ReturnType<typeof runIndexBench>> | undefined;
  let failure: unknown;
  try {
    builds = await runIndexBench(store, runId, { servers: run.servers, repeat: run.repeat, sweep: run.sweep, sampleEveryMs: run.sampleEveryMs, log: run.log }, async (server, o) => {
      if (session.stopped) throw new StoppedBetweenBuilds();
      return run.restart(server, o);
    });
  } catch (err) {
    if (!(err instanceof StoppedBetweenBuilds)) failure = err;
  } finally {
    // Each server goes back to the lab's own settings, at the tip, whatever happened.
    for (const s of run.servers) await run.restore(s.name).catch((e) => run.log(`could not restore ${s.name}: ${(e as Error).message}`));
  }
  const status = session.statusOf({ failed: failure !== undefined, aborted: false, planDone: builds !== undefined });
  store.finishRun(runId, status);
  if (failure !== undefined) throw failure;
  const summaries = builds ? summarizeBuilds(builds) : [];
  return {
    kind: 'index',
    runId,
    db,
    status,
    answering: [],
    thresholds: [],
    regressed: [],
    json: { runId, db, status, tipHeight: run.chain.tipHeight, servers: summaries },
    detail: { summaries, tipHeight: run.chain.tipHeight, sweep: run.sweep ?? null },
  };
}

/** A stop asked for while a build ran: the next one does not start. */
class StoppedBetweenBuilds extends Error {
  constructor() {
    super('stopped between builds');
  }
}
