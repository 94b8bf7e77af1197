/**
 * The request mix of a wallet run: what one sync of each wallet sends per step, per server. Read as
 * one ordered stream of the counted ok syncs' requests, so memory is one sync's step at a time plus
 * a row per server × wallet × step, however many syncs the run holds.
 */
import type { ResultsReader } from '../store/read';
import type { StepMix } from './wallet-model';

interface StepTally {
  requests: number;
  calls: number;
  bytes: number;
  busyNs: number;
}

/** Time covered by the union of [start, end) intervals given in ascending start order. */
export class BusyTime {
  private total = 0;
  private start = -1;
  private end = -1;

  add(start: number, end: number): void {
    if (start > this.end) {
      this.total += this.end - this.start;
      this.start = start;
      this.end = end;
    } else if (end > this.end) {
      this.end = end;
    }
  }

  get ns(): number {
    return this.total + this.end - this.start;
  }
}

/**
 * Per server and step, the sum over wallets of the wallet's mean per counted ok sync. A mean per
 * wallet, not a sum over syncs: a server that synced a wallet in more passes costs no more for it.
 */
export function readStepMix(reader: ResultsReader, runId: number, serverNames: Map<number, string>): StepMix[] {
  const syncsOf = new Map<string, number>(); // server id + wallet → counted ok syncs
  for (const c of reader.okSyncCounts(runId)) syncsOf.set(`${c.server_id}\u0000${c.wallet}`, c.n);

  const totals = new Map<string, StepTally & { server: number; step: string }>(); // server id + step
  // Typed through `as`: assigned only in the loop and in close(), TypeScript would narrow it to its `null` initializer.
  let current = null as { key: string; server: number; wallet: string; step: string; tally: Omit<StepTally, 'busyNs'>; busy: BusyTime } | null;
  const close = () => {
    if (!current) return;
    const share = 1 / syncsOf.get(`${current.server}\u0000${current.wallet}`)!;
    const key = `${current.server}\u0000${current.step}`;
    let t = totals.get(key);
    if (!t) totals.set(key, (t = { server: current.server, step: current.step, requests: 0, calls: 0, bytes: 0, busyNs: 0 }));
    t.requests += current.tally.requests * share;
    t.calls += current.tally.calls * share;
    t.bytes += current.tally.bytes * share;
    t.busyNs += current.busy.ns * share;
  };
  for (const r of reader.stepRequests(runId)) {
    const key = `${r.sync}\u0000${r.step}`;
    if (current?.key !== key) {
      close();
      current = { key, server: r.server, wallet: r.wallet, step: r.step, tally: { requests: 0, calls: 0, bytes: 0 }, busy: new BusyTime() };
    }
    current.tally.requests++;
    current.tally.calls += r.items;
    current.tally.bytes += r.bytes;
    current.busy.add(r.offset, r.offset + r.latency);
  }
  close();
  return [...totals.values()]
    .filter((t) => serverNames.has(t.server))
    .map((t) => ({ server: serverNames.get(t.server)!, step: t.step, requests: t.requests, calls: t.calls, bytes: t.bytes, busyMs: t.busyNs / 1e6 }));
}
