/**
 * What became of a wallet load's held connections across server outages: how many were lost, held
 * again and how soon, as stored with the run and printed by the summary and the report.
 */
import { readOutages, type Outage } from './outages';

export interface HeldReconnects {
  /** Held connections the server (or the network) closed. */
  lost: number;
  /** Of those, held again: connected and synced, subscriptions live. */
  reheld: number;
  /** Lost and not held again when the run ended. */
  stillLost: number;
  /** From each loss to held again, over the wallets held again. */
  reholdP50Ms: number | null;
  reholdMaxMs: number | null;
  /** Connection attempts that failed while the server was down (shared: one per backoff step). */
  failedAttempts: number;
  outages: Outage[];
}

/** "20 held connections lost, 20 held again (median 2.1 s, at most 3.0 s after the loss); 6 failed connection attempts". */
export function heldReconnectsText(r: HeldReconnects): string {
  const s = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
  const again = r.reheld > 0 ? ` (median ${s(r.reholdP50Ms)}, at most ${s(r.reholdMaxMs)} after the loss)` : '';
  return (
    `${r.lost} held connection${r.lost === 1 ? '' : 's'} lost, ${r.reheld} held again${again}` +
    (r.stillLost > 0 ? `, ${r.stillLost} still lost at the end` : '') +
    `; ${r.failedAttempts} failed connection attempt${r.failedAttempts === 1 ? '' : 's'}`
  );
}

/** A stored record read back; null when absent (nothing held, or a run of an earlier version). */
export function readHeldReconnects(v: unknown): HeldReconnects | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Partial<Record<keyof HeldReconnects, unknown>>;
  const counts = [o.lost, o.reheld, o.stillLost, o.failedAttempts];
  if (!counts.every((x): x is number => typeof x === 'number')) return null;
  const [lost, reheld, stillLost, failedAttempts] = counts;
  const orNull = (x: unknown) => (typeof x === 'number' ? x : null);
  return { lost, reheld, stillLost, failedAttempts, reholdP50Ms: orNull(o.reholdP50Ms), reholdMaxMs: orNull(o.reholdMaxMs), outages: readOutages(o.outages) };
}
