/**
 * Limits runs (`limits`): each server probed limit by limit (src/limits/), each finding stored as it
 * is made. A rerun on the same database takes over what the latest run on a server found (unless
 * `fresh`) and probes only the rest, so a stopped run is resumed by running it again. A stop
 * aborts the probe under way (its sockets closed at once) and keeps what was found.
 */
import { setMaxListeners } from 'node:events';
import { toolInfo } from '../../core/tool-info';
import { formatServerUrl } from '../../core/server-address';
import type { LimitFinding, LimitName } from '../../core/server-limits';
import type { ServerTarget } from '../../servers/targets';
import { LimitStore, type LimitsServerFindings } from '../../store/limit-results';
import { carriesOver, DATASET_LIMITS, probeLimits, type LimitsPlan } from '../../limits/prober';
import { ensureReachable } from '../reachable';
import { RunSession } from '../session';
import type { RunOutcome } from '../outcome';

export interface LimitsRun {
  servers: ServerTarget[];
  plan: LimitsPlan;
  /** The user said they operate the servers (OPERATE_FLAG): recorded with the run. */
  operates: boolean;
  /** Probe every limit again instead of taking over the latest run's findings. */
  fresh: boolean;
  db: string;
  dataset: { path: string; hash: string } | null;
  /** Said once the servers are found reachable (what the plan leaves out). */
  notes: string[];
  log: (line: string) => void;
}

export interface LimitsDetail {
  servers: LimitsServerFindings[];
}

export async function limitsSession(run: LimitsRun): Promise<{ outcome: RunOutcome<LimitsDetail>; code: number }> {
  return RunSession.run({ db: run.db, watch: { outputs: [], dashboard: undefined }, title: 'limits' }, (session) => measure(session, run));
}

async function measure(session: RunSession, run: LimitsRun): Promise<RunOutcome<LimitsDetail>> {
  await ensureReachable(run.servers, { timeoutMs: run.plan.timeoutMs, maxLineBytes: run.plan.maxLineBytes, tlsInsecure: false });
  for (const note of run.notes) run.log(note);
  const store = new LimitStore(session.openStore());
  const tool = toolInfo();
  const { dataset: _lines, ...plan } = run.plan;
  const urls = run.servers.map((t) => formatServerUrl(t, 'tcp'));
  const carried = run.servers.map((_, i) => (run.fresh ? [] : carriedOver(store.latestFindings(urls[i]), run.plan)));
  const { runId, serverIds } = session.record(() =>
    store.createRun(
      { tool_version: tool.version, git_commit: tool.gitCommit, config: { plan, operates: run.operates, fresh: run.fresh }, dataset_path: run.dataset?.path ?? null, dataset_hash: run.dataset?.hash ?? null },
      run.servers.map((t, i) => ({ name: t.name, profile: t.profile, url: urls[i] })),
    ),
  );
  const abort = new AbortController();
  // One listener per connection a probe holds: a connection-count probe holds hundreds.
  setMaxListeners(100_000, abort.signal);
  session.onStop(() => {
    run.log('stopping: closing the probe under way, keeping what was found');
    abort.abort();
  });
  let failure: unknown;
  try {
    for (const [i, server] of run.servers.entries()) {
      if (abort.signal.aborted) break;
      const known = new Map<LimitName, LimitFinding>();
      for (const c of carried[i]) {
        store.addFinding(runId, serverIds[i], c.finding, c.foundIn);
        known.set(c.finding.limit, c.finding);
      }
      if (carried[i].length) run.log(`${server.name}: ${carried[i].length} limits taken over from the latest run (--fresh probes them again)`);
      await probeLimits(server, run.plan, {
        known,
        signal: abort.signal,
        found: (f) => {
          store.addFinding(runId, serverIds[i], f);
          run.log(`${server.name}: ${f.limit} ${f.value === null ? `none up to ${f.triedUpTo}` : f.value}`);
        },
        log: (line) => run.log(`${server.name}: ${line}`),
      });
    }
  } catch (err) {
    failure = err;
  }
  const servers = store.findings(runId);
  const planDone = servers.every((s) => run.plan.limits.every((l) => s.findings.some((f) => f.limit === l) || !probeable(l, run.plan)));
  const status = session.statusOf({ failed: failure !== undefined, aborted: false, planDone });
  store.finishRun(runId, status);
  if (failure !== undefined) throw failure;
  return {
    kind: 'limits',
    runId,
    db: run.db,
    status,
    answering: [],
    thresholds: [],
    regressed: [],
    json: { runId, db: run.db, status, operates: run.operates, servers },
    detail: { servers },
  };
}

/** Limits a plan can probe at all: the dataset's sizes need a dataset. */
function probeable(limit: LimitName, plan: LimitsPlan): boolean {
  return plan.dataset !== null || !DATASET_LIMITS.includes(limit);
}

/**
 * The latest findings a rerun takes over: those of its limits that its plan would not probe further
 * (prober's carriesOver). A bound may rest on another finding (connections in all on the per-source
 * limit found), and only on one taken over itself.
 */
function carriedOver(latest: ReturnType<LimitStore['latestFindings']>, plan: LimitsPlan): ReturnType<LimitStore['latestFindings']> {
  const wanted = latest.filter((c) => plan.limits.includes(c.finding.limit));
  const settled = new Map<LimitName, LimitFinding>();
  for (const c of wanted) if (carriesOver(c.finding, plan)) settled.set(c.finding.limit, c.finding);
  return wanted.filter((c) => carriesOver(c.finding, plan, settled));
}
