/**
 * One request of a load run (the request iteration, request.ts): one Electrum (or Esplora REST) request of a load run, from its intended
 * send to its outcome. It is the connection's own pending entry (src/electrum/client.ts's
 * PendingCall), so a request costs one object: no promise, no closure, no timer. Times are ns on
 * the run's clock (src/engine/run-clock.ts).
 */
import type { PendingCall } from '../../electrum/client';
import { toElectrumError, type ElectrumError } from '../../electrum/errors';
import { answerSizeProblem } from '../../servers/answer-size';
import { classify, type ServerProfile } from '../../servers/profiles';
import type { LoadConnections, Slot } from '../../transports/connections';
import type { RequestSink } from '../sinks/request-sink';
import type { Request, RequestPicker } from './requests';
import type { LoadOutcome } from '../../core/load-types';
import type { RunClock } from '../run-clock';


/** What the request iteration sends through and records to. */
export interface RequestContext {
  conns: LoadConnections;
  /** Where each request's one outcome goes (sinks/request-sink.ts). */
  sink: RequestSink;
  picker: RequestPicker;
  profile: ServerProfile;
  timeoutMs: number;
  /** The run's schedule clock (its start, t0, in hrtime ns). */
  clock: RunClock;
}

export class LoadCall implements PendingCall {
  readonly rpc: string;
  deadline = 0;
  timeoutMs = 0;
  /** When it was written; NaN until then. */
  private actualNs = NaN;

  constructor(
    private readonly ctx: RequestContext,
    private readonly req: Request,
    private readonly intendedNs: number,
    private readonly slot: Slot,
    private readonly slotIndex: number,
    /** The closed model waits for each of its requests; the open model never does. */
    private readonly whenDone?: (ok: boolean) => void,
  ) {
    this.rpc = req.rpc;
    ctx.sink.opened();
  }

  /** The connection wrote it at `actualNs` (one write for all the calls queued in a turn). */
  written(actualNs: number): void {
    this.actualNs = actualNs;
    this.ctx.sink.sentOne((actualNs - this.intendedNs) / 1000, actualNs);
  }

  replied(result: unknown, endAt: bigint, bytes: number): void {
    const { ctx, req } = this;
    // An empty answer where the dataset has data is never a fast success (src/servers/answer-size.ts).
    const outcome = answerSizeProblem(ctx.profile, req.method, result, req.line)?.category ?? 'ok';
    this.end(outcome, ctx.clock.of(endAt), bytes);
  }

  failed(err: ElectrumError): void {
    const outcome = classify(this.ctx.profile, toElectrumError(err)).category;
    this.end(outcome, this.ctx.clock.now(), 0);
    this.ctx.conns.replaceIfUnusable(this.slotIndex);
  }

  private end(outcome: LoadOutcome, endNs: number, bytes: number): void {
    const { ctx, req } = this;
    // Failed before its write (the connection closed within the turn): it ends where it started.
    const actualNs = Number.isNaN(this.actualNs) ? endNs : this.actualNs;
    ctx.sink.completed(req.method, outcome, this.intendedNs, actualNs, endNs, bytes);
    this.slot.inFlight--;
    this.whenDone?.(outcome === 'ok');
  }
}

