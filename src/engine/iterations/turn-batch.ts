/**
 * The per-request path every executor sends through: requests queued per connection within a
 * turn and written together, and the record of a request no connection could take.
 */
import { LoadCall, type RequestContext } from './request-call';
import type { Request } from './requests';
import type { UnitBatch } from '../iteration';

/**
 * Requests queued per connection and written together, at the end of the turn that queued them (in
 * the open model, every request due by a batch's wake: arrival-driver.ts). Requests written
 * together stay on one connection while it has room (the next batch takes the next one, round
 * robin): a write costs more than everything else a request needs (on loopback, the kernel
 * delivers it to the server within the call), and spreading a batch over every connection would
 * mean a write per request again. Each request's lag is its own connection's write time minus its
 * own intended time.
 */
export class TurnBatch implements UnitBatch {
  /** Intended time of the oldest request queued and not yet written (Infinity: none). */
  oldestNs = Infinity;
  /** Requests queued and not yet written. */
  size = 0;
  /** Per connection, the calls queued since its last write: `counts[i]` of `queued[i]` (arrays keep their capacity). */
  private readonly queued: Array<Array<LoadCall | undefined>>;
  private readonly counts: number[];
  private readonly touched: number[] = [];
  private touchedCount = 0;
  /** The connection this batch's requests go to, while it has room. */
  private stay: number | undefined;

  constructor(private readonly ctx: RequestContext) {
    this.queued = ctx.conns.slots.map(() => []);
    this.counts = ctx.conns.slots.map(() => 0);
  }

  /**
   * Queues the picker's next request, due at `intendedNs`, on a connection with room in its
   * pipeline. False when there is none: the request is recorded as dropped (pipelines full) or as a
   * disconnect (all down).
   */
  add(intendedNs: number, whenDone?: (ok: boolean) => void): boolean {
    const { ctx } = this;
    const req = ctx.picker.next();
    const picked = ctx.conns.pick(this.stay);
    if (picked < 0) {
      recordUnsent(ctx, req, intendedNs);
      return false;
    }
    this.stay = picked;
    const slot = ctx.conns.slots[picked];
    const call = new LoadCall(ctx, req, intendedNs, slot, picked, whenDone);
    slot.inFlight++;
    if (this.size++ === 0) this.oldestNs = intendedNs;
    const n = this.counts[picked]++;
    if (n === 0) this.touched[this.touchedCount++] = picked;
    this.queued[picked][n] = call;
    slot.client!.queue(req.rpc, req.scripthash, call, ctx.timeoutMs);
    return true;
  }

  /** Writes every connection's queue; each request's send time is its connection's write. */
  flush(): void {
    const { ctx } = this;
    for (let t = 0; t < this.touchedCount; t++) {
      const index = this.touched[t];
      const at = ctx.conns.slots[index].client?.flush() ?? null;
      const actualNs = at === null ? ctx.clock.now() : ctx.clock.of(at);
      const q = this.queued[index];
      const n = this.counts[index];
      for (let i = 0; i < n; i++) {
        q[i]!.written(actualNs);
        q[i] = undefined; // not kept alive until overwritten
      }
      this.counts[index] = 0;
    }
    this.touchedCount = 0;
    this.stay = undefined;
    this.size = 0;
    this.oldestNs = Infinity;
  }
}

/** A request no connection could take: dropped (every pipeline full) or a disconnect (none usable). */
function recordUnsent(ctx: RequestContext, req: Request, intendedNs: number): void {
  if (ctx.conns.allDown) {
    // No connection at all: the server is unreachable (refused, reset), an error, not our saturation.
    const now = ctx.clock.now();
    ctx.sink.sentOne((now - intendedNs) / 1000, now);
    ctx.sink.completed(req.method, 'disconnect', intendedNs, now, now, 0, false);
  } else {
    ctx.sink.droppedOne(req.method, intendedNs);
  }
}
