/**
 * The bench's iteration: each unit is one planned call (src/bench/order.ts) made through its
 * server's measuring pool, ending as exactly one sample: its timing, the verify and answer-size
 * checks, the tip height it was made at. The plan's passes and warm-up are the executor's
 * (src/engine/executors/sequential.ts); each pass's calls, their order and which a resumed run
 * already has are this file's.
 */
import type { DatasetLine } from '../core/dataset-line';
import { toElectrumError } from '../electrum/errors';
import type { PlanContext, PlanPart } from '../engine/iteration';
import { plannedIteration } from '../engine/iterations/planned';
import { answerSizeProblem } from '../servers/answer-size';
import { classify, PROFILES } from '../servers/profiles';
import type { ServerTarget } from '../servers/targets';
import type { SampleRow } from '../store/results';
import { METHODS, isMethodName, type BenchMethodName } from './methods';
import type { WalletSubject } from './wallet-subjects';
import { plannedPass, type OrderPlan, type PlannedCall } from './order';
import type { SelfMonitor } from './selfcheck';
import type { MeasuringPool, Tip } from '../transports/transport';
import type { DoneSet } from './done-set';

export type BenchCall = PlannedCall<BenchMethodName>;

export interface BenchCalls {
  plan: OrderPlan<BenchMethodName>;
  servers: ServerTarget[];
  lines: DatasetLine[];
  /** Per line, what its wallet calls ask for; present when any is planned. */
  wallet?: WalletSubject[];
  pools: MeasuringPool[];
  serverIds: number[];
  tips: Tip[];
  monitor: SelfMonitor;
  verify: boolean;
  /** Whether a pass is cold (`bench --cold`): its samples say so. */
  coldPass(pass: number): boolean;
  /** Calls a resumed run already measured: not made again. */
  done: DoneSet;
  /** A call is about to be made. */
  starting(call: BenchCall): void;
  /** A call's one sample. */
  measured(sample: SampleRow): void;
  /** measured() threw (the database refused a write): the run is to stop and fail with it. */
  failed(err: unknown): void;
}

export function benchCallIteration(calls: BenchCalls): PlanContext {
  return plannedIteration({
    servers: calls.servers.length,
    unitsOf: (part) => remaining(calls, part),
    run: async (call, part) => {
      calls.starting(call);
      calls.measured(await measure(calls, call, part.warmup));
    },
    failed: calls.failed,
  });
}

/** The part's calls in the plan's order, less those already measured. */
function* remaining(calls: BenchCalls, part: PlanPart): Generator<BenchCall> {
  const { methods } = calls.plan;
  for (const call of plannedPass(calls.plan, part.pass)) {
    if (part.server !== undefined && call.server !== part.server) continue;
    if (calls.done.has(call.server, call.pass, call.addressIdx, methods.indexOf(call.method))) continue;
    yield call;
  }
}

async function measure(calls: BenchCalls, call: BenchCall, warmup: boolean): Promise<SampleRow> {
  const spec = METHODS[call.method];
  const profile = PROFILES[calls.servers[call.server].profile];
  const line = calls.lines[call.addressIdx];
  const subject = { line, wallet: calls.wallet?.[call.addressIdx] };
  const tip = calls.tips[call.server];
  const base = {
    serverId: calls.serverIds[call.server],
    pass: call.pass,
    warmup,
    cold: calls.coldPass(call.pass),
    addressIdx: call.addressIdx,
    method: call.method,
    atMs: Date.now(),
  };
  let startedNs = process.hrtime.bigint();
  try {
    const outcome = await calls.pools[call.server].use((client) => {
      startedNs = process.hrtime.bigint();
      return client.call(spec.rpc, spec.params(subject));
    });
    // Only the counted passes: the warm-up's stalls (JIT, first use of every code path) are not in any figure.
    if (!warmup) calls.monitor.recordCall(outcome.loopBusyMs, outcome.latencyNs);
    const mismatch = calls.verify ? spec.mismatch(outcome.result, subject) : null;
    // Too small an answer is its own outcome, counted like an error, whatever --verify says.
    const short = isMethodName(call.method) ? answerSizeProblem(profile, call.method, outcome.result, line) : null;
    return {
      ...base,
      latencyNs: outcome.latencyNs,
      responseBytes: outcome.responseBytes,
      resultSize: spec.resultSize(outcome.result),
      status: short ? short.category : 'ok',
      error: short ? short.message : mismatch,
      tipHeight: tip.height,
      mismatch: calls.verify ? mismatch !== null : null,
      requests: outcome.requests ?? null,
    };
  } catch (err) {
    const e = classify(profile, toElectrumError(err));
    return {
      ...base,
      latencyNs: process.hrtime.bigint() - startedNs,
      responseBytes: null,
      resultSize: null,
      status: e.category,
      error: e.message,
      tipHeight: tip.height,
      mismatch: null,
    };
  }
}
